// Fragment, rendered into statements when they load (never run alone): a WITH carrying
// {{carry}} and binding {{as}} to the relevance floor: {{floor}}, or $named_floor when a word
// the query names a thing by has no hit among the project's notes ($mentioned: each such word
// a note index query kept to $project, kg_brain/domain/query_text.py proper_names). The index
// keeps to the project inside the query, but a longer project name holding this one matches
// too: a few hits are read and their project checked.
WITH {{carry}}, CASE WHEN any(name IN $mentioned WHERE COUNT {
       CALL db.index.fulltext.queryNodes('note_fulltext', name, {limit: 3}) YIELD node
       WHERE node.project = $project
       RETURN node } = 0) THEN $named_floor ELSE {{floor}} END AS {{as}}

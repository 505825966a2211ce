// Fragment, rendered into statements when they load (never run alone): the link {{row}} (a map
// of type, reason, weight, origin) from {{src}} to {{dst}}, made or refreshed (one per pair and
// type), bound to r. The type, checked by the caller against the closed LinkType vocabulary, is
// a dynamic type, never spliced into text.
MERGE ({{src}})-[r:$({{row}}.type)]->({{dst}})
ON CREATE SET r.created = $now
SET r.reason = {{row}}.reason, r.weight = {{row}}.weight, r.origin = {{row}}.origin

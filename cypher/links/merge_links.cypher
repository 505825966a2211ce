// Create or refresh typed links in one batch. The type is a parameter checked by the caller
// against the closed LinkType vocabulary and used as a dynamic type, never spliced into text.
// `origin` says who made the link: 'auto' (decided by the enricher; RELATES_TO among them may be
// pruned for stronger ones), 'explicit' (a fix's FIXES, a handoff's PART_OF) or 'manual' (made
// by hand); neither of the last two is ever pruned or rewritten.
// params: rows: list of {src, dst, type, reason, weight, origin}; now: datetime.
// returns: src, dst, type; type of each link written
UNWIND $rows AS row
MATCH (a:Note {zk_id: row.src}), (b:Note {zk_id: row.dst})
{{> merge_link
    src: a
    dst: b
    row: row }}
RETURN a.zk_id AS src, b.zk_id AS dst, type(r) AS type

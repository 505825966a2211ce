// Fragment, rendered into statements when they load (never run alone): the bounded degree of
// the note {{note}}: it keeps at most {{keep}} of its automatic RELATES_TO links (in and out), the
// strongest, and the weakest beyond that are deleted; typed links, and links made explicitly or
// by hand, never are. Binds dropped (how many) and others (the other end of each).
CALL ({{note}}) {
  MATCH ({{note}})-[r:RELATES_TO]-(m:Note)
  WHERE coalesce(r.origin, 'auto') = 'auto'
  WITH r, m ORDER BY r.weight DESC, m.zk_id
  WITH collect({r: r, m: m.zk_id}) AS links
  UNWIND links[{{keep}}..] AS weak
  WITH weak.r AS r, weak.m AS other
  DELETE r
  RETURN count(*) AS dropped, collect(other) AS others
}

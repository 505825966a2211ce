// Full notes by id, with their typed links in both directions (embedding left out) and the
// entities they mention, rarest first.
// params: zk_ids: list of ids.
// returns: note, links, entities; note (map), links and entities (lists of maps), in the order
//          asked
UNWIND range(0, size($zk_ids) - 1) AS i
MATCH (n:Note {zk_id: $zk_ids[i]})
RETURN
  {{> note_view }}
ORDER BY i

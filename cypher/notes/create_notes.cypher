// Create a batch of notes; the embedding is stored as a float32 vector property.
// params: rows: list of maps with every Note property (embedding: 384 floats; entities, when
//         present, is not a property: store/notes.insert_notes writes them as MENTIONS).
// returns: zk_id; zk_id of each created note
UNWIND $rows AS row
{{> create_note }}
RETURN n.zk_id AS zk_id

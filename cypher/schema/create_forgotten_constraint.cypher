// Tombstones of forgotten notes: one per zk_id, looked up by id (forget, undo, backup restore).
// params: none.
// returns: nothing
CREATE CONSTRAINT forgotten_zk_id IF NOT EXISTS FOR (f:Forgotten) REQUIRE f.zk_id IS UNIQUE

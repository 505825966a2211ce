// Previous versions of notes rewritten by evolution or update, looked up by note id.
// params: none.
// returns: nothing
CREATE INDEX revision_zk_id IF NOT EXISTS FOR (r:Revision) ON (r.zk_id)

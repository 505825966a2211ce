// Jobs that leave nothing to keep once they ran (a note's sentences job: the note holds its
// sentences), deleted in the transaction of their writes.
// params: keys: job keys.
// returns: key; each job deleted
MATCH (j:Job)
WHERE j.key IN $keys
WITH j, j.key AS key
DETACH DELETE j
RETURN key

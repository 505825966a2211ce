// Whether a project key is taken: by a workspace identity, or by notes filed under it (by an
// explicit project, KG_BRAIN_PROJECT, or a store not yet migrated to identities).
// params: key
// returns: used
RETURN EXISTS { MATCH (:Project {key: $key}) } OR EXISTS { MATCH (:Note {project: $key}) }
       OR EXISTS { MATCH (:Forgotten {project: $key}) } AS used

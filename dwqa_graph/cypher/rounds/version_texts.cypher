// Page texts of the given versions: the rubric's not-verbatim check compares a candidate's
// question with the full text of the documents its claims come from.
MATCH (v:DocumentVersion)
WHERE v.id IN $ids
RETURN v.id AS id, coalesce(v.text, '') AS text

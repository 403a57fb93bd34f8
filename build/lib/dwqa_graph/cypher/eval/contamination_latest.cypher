// The newest check per (kind, dataset, subject): what the report counts.
MATCH (c:ContaminationCheck)
WITH c ORDER BY c.created_at DESC, c.id
WITH c.kind AS kind, c.dataset AS dataset, c.subject AS subject, collect(c)[0] AS c
RETURN kind, dataset, subject, c.flagged AS flagged, c.total AS total,
       c.by_reason AS by_reason, c.created_at AS created_at
ORDER BY kind, dataset, subject

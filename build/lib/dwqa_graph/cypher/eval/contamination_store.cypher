// One contamination check (runtime, pretraining or paraphrase) with its counts and report.
MERGE (c:ContaminationCheck {id: $id})
SET c.kind = $kind, c.dataset = $dataset, c.subject = $subject, c.created_at = $created_at,
    c.flagged = $flagged, c.total = $total, c.by_reason = $by_reason, c.report = $report
RETURN c.id AS id

// A round's quality numbers (JSON): rejections per rubric check, pass rates, NO_ITEM reasons.
UNWIND $rows AS row
MATCH (r:Round {t: row.t})
SET r.quality = row.quality

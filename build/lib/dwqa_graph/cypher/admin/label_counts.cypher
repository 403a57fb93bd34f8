// Node count per label, from the count store (constant time, no scan).
CALL db.stats.retrieve('GRAPH COUNTS') YIELD data
UNWIND data.nodes AS row
WITH row WHERE row.label IS NOT NULL
RETURN row.label AS label, row.count AS count
ORDER BY label

// Schema v3: claim rejections are inspectable records with their own key.
// (Claims are reached through (DocumentVersion)-[:HAS_CLAIM]->, so they need no other index.)
CREATE CONSTRAINT claim_rejection_id IF NOT EXISTS FOR (n:ClaimRejection) REQUIRE n.id IS UNIQUE;

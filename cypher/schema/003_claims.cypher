// Schema v3: claim rejections are inspectable records with their own key; claim features
// that sampling filters on are indexed.
CREATE CONSTRAINT claim_rejection_id IF NOT EXISTS FOR (n:ClaimRejection) REQUIRE n.id IS UNIQUE;
CREATE INDEX claim_version IF NOT EXISTS FOR (n:Claim) ON (n.version_id);
CREATE INDEX claim_document IF NOT EXISTS FOR (n:Claim) ON (n.document_id);

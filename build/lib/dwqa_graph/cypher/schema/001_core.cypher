// Schema v1: uniqueness constraints on every node key, and the indexes lookups use.
// Applied by `dwqa db schema` and before any write; every statement is idempotent.
CREATE CONSTRAINT query_id IF NOT EXISTS FOR (n:Query) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT document_id IF NOT EXISTS FOR (n:Document) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT document_version_id IF NOT EXISTS FOR (n:DocumentVersion) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT snippet_id IF NOT EXISTS FOR (n:Snippet) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT answer_id IF NOT EXISTS FOR (n:Answer) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT claim_id IF NOT EXISTS FOR (n:Claim) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT round_t IF NOT EXISTS FOR (n:Round) REQUIRE n.t IS UNIQUE;
CREATE CONSTRAINT qaitem_id IF NOT EXISTS FOR (n:QAItem) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT agent_id IF NOT EXISTS FOR (n:Agent) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT evalrun_id IF NOT EXISTS FOR (n:EvalRun) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT prediction_id IF NOT EXISTS FOR (n:Prediction) REQUIRE n.id IS UNIQUE;
CREATE INDEX query_dataset IF NOT EXISTS FOR (n:Query) ON (n.dataset);
CREATE INDEX document_url IF NOT EXISTS FOR (n:Document) ON (n.url);
CREATE INDEX snippet_query IF NOT EXISTS FOR (n:Snippet) ON (n.query_id);

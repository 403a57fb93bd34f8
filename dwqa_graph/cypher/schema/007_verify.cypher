// Schema v7: verification of past rounds (rounds/verify.py): a run per round and a result
// per item, each keyed by its id.
CREATE CONSTRAINT verify_run_id IF NOT EXISTS FOR (n:VerifyRun) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT verification_id IF NOT EXISTS FOR (n:Verification) REQUIRE n.id IS UNIQUE;

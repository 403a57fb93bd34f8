// Schema v4: evaluation. Agents, runs and predictions already have keys (001_core); static
// benchmarks, their items and Leak&Test results get theirs here.
CREATE CONSTRAINT static_set_name IF NOT EXISTS FOR (n:StaticSet) REQUIRE n.name IS UNIQUE;
CREATE CONSTRAINT static_item_id IF NOT EXISTS FOR (n:StaticItem) REQUIRE n.id IS UNIQUE;
CREATE CONSTRAINT leaktest_id IF NOT EXISTS FOR (n:LeakTest) REQUIRE n.id IS UNIQUE;
CREATE INDEX prediction_run IF NOT EXISTS FOR (n:Prediction) ON (n.run_id);
CREATE CONSTRAINT contamination_check_id IF NOT EXISTS FOR (n:ContaminationCheck) REQUIRE n.id IS UNIQUE;

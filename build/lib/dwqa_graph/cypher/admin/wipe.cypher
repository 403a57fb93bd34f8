// Delete every node and relationship in batches. Used only by the test suite on its own
// server; never called by a user-facing command.
MATCH (n)
CALL (n) { DETACH DELETE n } IN TRANSACTIONS OF 10000 ROWS

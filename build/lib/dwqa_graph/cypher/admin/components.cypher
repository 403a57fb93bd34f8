// Server name, version and edition, for `dwqa db status`.
CALL dbms.components() YIELD name, versions, edition
RETURN name, versions[0] AS version, edition

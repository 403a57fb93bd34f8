/*
 * DwqaNeo4j: runs a real Neo4j 5.26 LTS Community server in this JVM, built only from
 * Maven Central jars (see pom.xml next to this file), because Docker and the Neo4j tarball
 * are not available here. Java 17 single-file source mode, so there is no compile step:
 *
 *   mvn -q -B -f neo4j/pom.xml dependency:build-classpath -Dmdep.outputFile=/tmp/neo4j-cp.txt
 *   java @neo4j/jvm.args -Xms512m -Xmx1g -cp "$(cat /tmp/neo4j-cp.txt)" neo4j/DwqaNeo4j.java \
 *        --home DIR [--bolt-port 7687] [--http-port 7474] [--no-http] \
 *        [--pagecache 512m] [--conf key=value ...]
 *
 * Prints exactly one line to stdout when Bolt (and HTTP) accept connections:
 *   DWQA_NEO4J_READY bolt://127.0.0.1:P http://127.0.0.1:P version=5.26.x edition=community
 * (the http URL is "-" with --no-http). Exit code != 0 and a message on stderr on failure.
 * Authentication is disabled: drivers may send any user/password, or none.
 * SIGTERM/SIGINT shut the DBMS down cleanly (NeoBootstrapper's own signal handler + hook);
 * note a shell's `cmd &` starts the JVM with SIGINT ignored, so use SIGTERM from scripts.
 * jvm.args holds the --add-opens flags of Neo4j's own launcher: without them the page cache
 * and tx-log native access fall back to slower paths (WARNs in logs/debug.log).
 */
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.neo4j.server.CommunityBootstrapper;

public class DwqaNeo4j {
    // user-logs.xml without the Console appender of Neo4j's default, so neo4j.log does not
    // spam stdout (stdout carries only the READY line). debug/http/query logs already go
    // to files under <home>/logs with the built-in server-logs.xml.
    private static final String USER_LOGS_XML = """
            <?xml version="1.0" encoding="UTF-8"?>
            <Configuration>
              <Appenders>
                <RollingRandomAccessFile name="RollingFile" fileName="${config:server.directories.logs}/neo4j.log"
                                         filePattern="$${config:server.directories.logs}/neo4j.log.%02i">
                  <PatternLayout pattern="%d{yyyy-MM-dd HH:mm:ss.SSSZ}{GMT+0} %-5p %m%n"/>
                  <Policies><SizeBasedTriggeringPolicy size="20 MB"/></Policies>
                  <DefaultRolloverStrategy fileIndex="min" max="3"/>
                </RollingRandomAccessFile>
              </Appenders>
              <Loggers><Root level="info"><AppenderRef ref="RollingFile"/></Root></Loggers>
            </Configuration>
            """;

    public static void main(String[] args) throws Exception {
        Path home = null;
        int boltPort = 7687, httpPort = 7474;
        boolean http = true;
        String pagecache = "512m";
        Map<String, String> extra = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--home" -> home = Path.of(args[++i]).toAbsolutePath();
                case "--bolt-port" -> boltPort = Integer.parseInt(args[++i]);
                case "--http-port" -> httpPort = Integer.parseInt(args[++i]);
                case "--no-http" -> http = false;
                case "--pagecache" -> pagecache = args[++i];
                case "--conf" -> { String[] kv = args[++i].split("=", 2); extra.put(kv[0], kv[1]); }
                default -> usage("unknown argument: " + args[i]);
            }
        }
        if (home == null) usage("--home DIR is required");

        Path conf = home.resolve("conf");
        Files.createDirectories(conf);
        Path userLogs = conf.resolve("user-logs.xml");
        if (!Files.exists(userLogs)) Files.writeString(userLogs, USER_LOGS_XML);

        Map<String, String> cfg = new LinkedHashMap<>();
        cfg.put("dbms.security.auth_enabled", "false");          // tests/bench: no password dance
        cfg.put("server.default_listen_address", "127.0.0.1");   // never listen beyond loopback
        cfg.put("server.default_advertised_address", "127.0.0.1");
        cfg.put("server.bolt.listen_address", "127.0.0.1:" + boltPort);
        // Advertised ports must match too: neo4j:// routing tables and Browser's discovery use them.
        cfg.put("server.bolt.advertised_address", "127.0.0.1:" + boltPort);
        cfg.put("server.http.advertised_address", "127.0.0.1:" + httpPort);
        cfg.put("server.http.enabled", Boolean.toString(http));
        cfg.put("server.http.listen_address", "127.0.0.1:" + httpPort);
        cfg.put("server.https.enabled", "false");
        // Server-side routing would open a 2nd port (7688) and clash between parallel instances;
        // neo4j:// drivers still work against a single instance without it.
        cfg.put("dbms.routing.enabled", "false");
        cfg.put("dbms.usage_report.enabled", "false");            // no phoning home (no internet anyway)
        cfg.put("server.memory.pagecache.size", pagecache);       // default would take ~50% of RAM
        // Bound tx-log disk use for throwaway test/bench stores (default keeps 2 days of 256 MB files).
        cfg.put("db.tx_log.rotation.size", "64m");
        cfg.put("db.tx_log.rotation.retention_policy", "2 files");
        // Netty's graceful-shutdown quiet period (5 s per event-loop group) made SIGTERM take ~15 s;
        // the databases are already checkpointed and closed by then, so skip the wait.
        cfg.put("internal.dbms.bolt.netty_server_shutdown_quiet_period", "0");
        cfg.put("server.logs.user.config", userLogs.toString());
        // Transaction memory (dbms.memory.transaction.total.max) defaults to 70% of -Xmx: size the heap instead.
        cfg.putAll(extra);

        // Optional <home>/conf/neo4j.conf is honoured too; the settings above override it.
        Path confFile = conf.resolve("neo4j.conf");
        CommunityBootstrapper boot = new CommunityBootstrapper();
        // daemonMode=false: daemon mode would close this process's stdout/stderr.
        int rc = boot.start(home, Files.exists(confFile) ? confFile : null, cfg, false, false);
        if (rc != 0) {
            System.err.println("DWQA_NEO4J_FAILED rc=" + rc + " see " + home.resolve("logs"));
            System.exit(rc);
        }

        // start() returns once the DBMS and connectors are up; ask Cypher for the real version
        // (this also proves the system database answers queries).
        String[] ve = boot.getDatabaseManagementService().database("system").executeTransactionally(
                "CALL dbms.components() YIELD versions, edition RETURN versions[0] AS v, edition AS e",
                Map.of(), r -> { var row = r.next(); return new String[] {(String) row.get("v"), (String) row.get("e")}; });
        System.out.println("DWQA_NEO4J_READY bolt://127.0.0.1:" + boltPort + " "
                + (http ? "http://127.0.0.1:" + httpPort : "-") + " version=" + ve[0] + " edition=" + ve[1]);
        System.out.flush();

        // Keep the JVM alive; SIGTERM/SIGINT -> System.exit(0) -> bootstrapper's shutdown hook
        // calls DatabaseManagementService.shutdown() (clean checkpoint, store unlocked).
        Thread.currentThread().join();
    }

    private static void usage(String msg) {
        System.err.println(msg + "\nusage: DwqaNeo4j --home DIR [--bolt-port N] [--http-port N] [--no-http]"
                + " [--pagecache SIZE] [--conf key=value]...");
        System.exit(64);
    }
}

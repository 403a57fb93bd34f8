/*
 * DwqaNeo4j: runs a real Neo4j 5.26 LTS Community server in this JVM, built only from
 * Maven Central jars (see pom.xml next to this file), because Docker and the Neo4j tarball
 * are not available here. One file, runnable in Java 17's single-file source mode as below;
 * dwqa compiles it once per user instead (dwqa_graph/maven.py: a source-mode start costs two
 * seconds of compiling every time):
 *
 *   mvn -q -B -f neo4j/pom.xml dependency:build-classpath -Dmdep.outputFile=/tmp/neo4j-cp.txt
 *   java @neo4j/jvm.args -Xms512m -Xmx1g -cp "$(cat /tmp/neo4j-cp.txt)" neo4j/DwqaNeo4j.java \
 *        --home DIR --password-file FILE [--bolt-port 7687] [--http-port 7474] [--no-http] \
 *        [--pagecache 512m] [--conf key=value ...]
 *
 * Prints exactly one line to stdout when Bolt (and HTTP) accept connections:
 *   DWQA_NEO4J_READY bolt://127.0.0.1:P http://127.0.0.1:P version=5.26.x edition=community
 * (the http URL is "-" with --no-http). Exit code != 0 and a message on stderr on failure.
 * Authentication is on: user neo4j, password = the first line of --password-file (the Python
 * side generates it per installation, mode 0600). Any web page the user visits can reach
 * 127.0.0.1, so without auth it could drive this server (HTTP API, Bolt over WebSocket).
 * The password is applied before the connectors open when the neo4j user still has Neo4j's
 * default password -- a fresh store, or one created earlier with auth off -- through the
 * auth.ini mechanism of `neo4j-admin dbms set-initial-password`; if the user has some other
 * password, it is reset to the file's right after start (the file is authoritative).
 * Also: CORS only for the Browser's own origin (Neo4j's default is `*`), LOAD CSV may not
 * read local files, Bolt and HTTP listen on 127.0.0.1 only. Neo4j 5.26 has no Host-header or
 * WebSocket-Origin check to turn on, so the password is what stops DNS rebinding.
 * --no-auth (tests of the launcher itself only) keeps the old auth-off behaviour.
 * SIGTERM/SIGINT shut the DBMS down cleanly (NeoBootstrapper's own signal handler + hook);
 * note a shell's `cmd &` starts the JVM with SIGINT ignored, so use SIGTERM from scripts.
 * jvm.args holds the --add-opens flags of Neo4j's own launcher: without them the page cache
 * and tx-log native access fall back to slower paths (WARNs in logs/debug.log).
 */
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import org.neo4j.cli.ExecutionContext;
import org.neo4j.commandline.admin.security.SetInitialPasswordCommand;
import org.neo4j.io.fs.DefaultFileSystemAbstraction;
import org.neo4j.server.CommunityBootstrapper;
import picocli.CommandLine;

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
        boolean auth = true;
        Path passwordFile = null;
        String pagecache = "512m";
        Map<String, String> extra = new LinkedHashMap<>();
        for (int i = 0; i < args.length; i++) {
            switch (args[i]) {
                case "--home" -> home = Path.of(args[++i]).toAbsolutePath();
                case "--bolt-port" -> boltPort = Integer.parseInt(args[++i]);
                case "--http-port" -> httpPort = Integer.parseInt(args[++i]);
                case "--no-http" -> http = false;
                case "--password-file" -> passwordFile = Path.of(args[++i]);
                case "--no-auth" -> auth = false;
                case "--pagecache" -> pagecache = args[++i];
                case "--conf" -> { String[] kv = args[++i].split("=", 2); extra.put(kv[0], kv[1]); }
                default -> usage("unknown argument: " + args[i]);
            }
        }
        if (home == null) usage("--home DIR is required");
        if (auth && passwordFile == null) usage("--password-file FILE is required (or --no-auth)");
        String password = auth ? readPassword(passwordFile) : null;

        Path conf = home.resolve("conf");
        Files.createDirectories(conf);
        Path userLogs = conf.resolve("user-logs.xml");
        if (!Files.exists(userLogs)) Files.writeString(userLogs, USER_LOGS_XML);

        Map<String, String> cfg = new LinkedHashMap<>();
        cfg.put("dbms.security.auth_enabled", Boolean.toString(auth));
        // No lockout after failed logins: the password is a generated 32-character random one
        // (guessing is hopeless either way), while a lockout let any web page lock our own
        // commands out by sending wrong logons over Bolt-over-WebSocket, which has no Origin
        // check in 5.26.
        cfg.put("dbms.security.auth_max_failed_attempts", "0");
        // Neo4j answers every origin with `Access-Control-Allow-Origin: *` by default, so any web
        // page could read the HTTP API's answers. The Browser is served from this origin and
        // talks Bolt; nothing else needs CORS.
        cfg.put("dbms.security.http_access_control_allow_origin", "http://127.0.0.1:" + httpPort);
        // LOAD CSV FROM 'file:///...' would let a query read any file the JVM user can read.
        cfg.put("dbms.security.allow_csv_import_from_file_urls", "false");
        cfg.put("server.directories.import", home.resolve("import").toString());
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
        if (auth) setInitialPassword(home, conf, password);
        CommunityBootstrapper boot = new CommunityBootstrapper();
        // daemonMode=false: daemon mode would close this process's stdout/stderr.
        int rc = boot.start(home, Files.exists(confFile) ? confFile : null, cfg, false, false);
        if (rc != 0) {
            System.err.println("DWQA_NEO4J_FAILED rc=" + rc + " see " + home.resolve("logs"));
            System.exit(rc);
        }

        // start() returns once the DBMS and connectors are up; ask Cypher for the real version
        // (this also proves the system database answers queries).
        var system = boot.getDatabaseManagementService().database("system");
        if (auth) resetPassword(system, password);
        String[] ve = system.executeTransactionally(
                "CALL dbms.components() YIELD versions, edition RETURN versions[0] AS v, edition AS e",
                Map.of(), r -> { var row = r.next(); return new String[] {(String) row.get("v"), (String) row.get("e")}; });
        System.out.println("DWQA_NEO4J_READY bolt://127.0.0.1:" + boltPort + " "
                + (http ? "http://127.0.0.1:" + httpPort : "-") + " version=" + ve[0] + " edition=" + ve[1]);
        System.out.flush();

        // Keep the JVM alive; SIGTERM/SIGINT -> System.exit(0) -> bootstrapper's shutdown hook
        // calls DatabaseManagementService.shutdown() (clean checkpoint, store unlocked).
        Thread.currentThread().join();
    }

    private static String readPassword(Path file) throws Exception {
        String pw = Files.readString(file, StandardCharsets.UTF_8).strip();
        if (pw.length() < 8) usage("the password in " + file + " is shorter than 8 characters");
        return pw;
    }

    /** `neo4j-admin dbms set-initial-password`, in process: writes data/dbms/auth.ini, which the
     *  DBMS applies at start-up -- before any connector opens -- if user neo4j still has the
     *  default password (fresh store, or a store created with auth off). */
    private static void setInitialPassword(Path home, Path conf, String password) throws Exception {
        var out = new ByteArrayOutputStream();
        var ps = new PrintStream(out, true, StandardCharsets.UTF_8);
        var ctx = new ExecutionContext(home, conf, ps, ps, new DefaultFileSystemAbstraction());
        int rc = new CommandLine(new SetInitialPasswordCommand(ctx)).execute("--", password); // "--": it may start with "-"
        if (rc != 0) {
            System.err.println("DWQA_NEO4J_FAILED set-initial-password rc=" + rc + ": " + out);
            System.exit(70);
        }
    }

    /** The store's neo4j user may have another password (e.g. the password file was recreated):
     *  make the file's password the one that works. Neo4j refuses to "change" a password to
     *  itself, which is the normal case and means there is nothing to do. */
    private static void resetPassword(org.neo4j.graphdb.GraphDatabaseService system, String password) {
        try {
            system.executeTransactionally("ALTER USER neo4j SET PASSWORD $pw CHANGE NOT REQUIRED",
                    Map.of("pw", password));
        } catch (RuntimeException e) {
            String msg = String.valueOf(e.getMessage()) + " " + String.valueOf(e.getCause());
            if (!msg.contains("cannot be the same")) throw e;
        }
    }

    private static void usage(String msg) {
        System.err.println(msg + "\nusage: DwqaNeo4j --home DIR --password-file FILE [--no-auth] [--bolt-port N]"
                + " [--http-port N] [--no-http] [--pagecache SIZE] [--conf key=value]...");
        System.exit(64);
    }
}

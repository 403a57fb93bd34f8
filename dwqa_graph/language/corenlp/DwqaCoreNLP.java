// A long-lived Stanford CoreNLP worker for dwqa, spoken to over stdin/stdout: no network port,
// so nothing on the machine (a web page, another user) can reach it.
//
// Protocol (UTF-8):
//   request:  a header line "<id> <byte length>[ <cues>]\n", then exactly that many bytes of text
//   response: one line "<id>\t<compact JSON>\n": {"sentences": [...]} or {"error": "..."}
//   at start: one line "ready\n" once the models are loaded
// Requests are annotated on a pool of --threads workers; responses come back as they finish,
// in any order (the id says which). Each sentence carries only what dwqa reads:
//   tokens [word, lemma, pos, ner, normalizedNER, begin, end] (character offsets in the text),
//   deps [relation, governor, dependent] (enhanced++ dependencies, 1-based token indexes, 0 =
//   root) and mentions [tokenBegin, tokenEnd, ner, normalizedNER or timex value].
// A sentence of more than --max-sentence-tokens tokens is not tagged or parsed: the reply
// lists it under "skipped" as [begin, end, tokens] (character offsets) instead. Tagging and
// parsing cost grows with sentence length (SUTime's patterns and the parser's memory most),
// and a "sentence" that long is a table, a list or garbage, never prose.
// A request header may end in " LEMMAS|WORDS|OPENERS|LEANERS" (comma-separated cues): then a
// sentence is tagged and parsed only if it may say what the reader looks for -- a token with
// a digit, a word of WORDS, or a word whose lemma as a verb (the library's Morphology, under
// every verb tag) is one of LEMMAS --, with OPENERS "1" if it opens a paragraph, and if it is
// the sentence before one read that has a word of LEANERS (a pronoun leans on it). The others
// are blanked like long ones: "unread" counts them, "unread_words" lists their tokens' words.
//
// Run: java -cp <classpath> DwqaCoreNLP.java --threads 2 --annotators tokenize,ssplit,...
//      [--max-sentence-tokens N] [--prop key=value ...]
//      (the pipeline's properties and bounds: dwqa_graph/language/corenlp.py)

import edu.stanford.nlp.ling.CoreAnnotations;
import edu.stanford.nlp.ling.CoreLabel;
import edu.stanford.nlp.pipeline.Annotation;
import edu.stanford.nlp.pipeline.StanfordCoreNLP;
import edu.stanford.nlp.process.Morphology;
import edu.stanford.nlp.semgraph.SemanticGraph;
import edu.stanford.nlp.semgraph.SemanticGraphCoreAnnotations;
import edu.stanford.nlp.semgraph.SemanticGraphEdge;
import edu.stanford.nlp.time.TimeAnnotations;
import edu.stanford.nlp.time.Timex;
import edu.stanford.nlp.util.CoreMap;

import java.io.BufferedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.Properties;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Semaphore;

public class DwqaCoreNLP {
    static PrintStream out;
    static int maxSentenceTokens = Integer.MAX_VALUE;
    // tokenize and ssplit alone: where the sentences are, before any costly annotator runs
    static StanfordCoreNLP splitter;
    static final String[] VERB_TAGS = {"VB", "VBD", "VBG", "VBN", "VBP", "VBZ"};
    // Morphology instances are not thread-safe (its static methods share one lock)
    static final ThreadLocal<Morphology> MORPHOLOGY = ThreadLocal.withInitial(Morphology::new);

    public static void main(String[] args) throws Exception {
        int threads = 2;
        Properties props = new Properties();
        props.setProperty("annotators", "tokenize,ssplit,pos,lemma,ner,depparse");
        for (int i = 0; i + 1 < args.length; i += 2) {
            if (args[i].equals("--threads")) threads = Integer.parseInt(args[i + 1]);
            else if (args[i].equals("--max-sentence-tokens")) maxSentenceTokens = Integer.parseInt(args[i + 1]);
            else if (args[i].equals("--annotators")) props.setProperty("annotators", args[i + 1]);
            else if (args[i].equals("--prop")) {  // key=value, set by the Python side
                int eq = args[i + 1].indexOf('=');
                props.setProperty(args[i + 1].substring(0, eq), args[i + 1].substring(eq + 1));
            }
        }
        // Everything CoreNLP logs goes to stderr; stdout carries only the protocol.
        out = new PrintStream(new FileOutputStream(FileDescriptor.out), false, StandardCharsets.UTF_8);
        System.setOut(System.err);
        StanfordCoreNLP pipeline = new StanfordCoreNLP(props);
        Properties split = new Properties();
        split.putAll(props);
        split.setProperty("annotators", "tokenize,ssplit");
        splitter = new StanfordCoreNLP(split);
        pipeline.process("Warm up on 1 January 2000 in Paris.");
        synchronized (out) { out.print("ready\n"); out.flush(); }

        ExecutorService pool = Executors.newFixedThreadPool(threads);
        Semaphore inflight = new Semaphore(threads * 2);  // bounded queue: reading waits
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        while (true) {
            String header = readLine(in);
            if (header == null) break;
            String[] parts = header.trim().split(" ");
            if (parts.length != 2 && parts.length != 3) { reply("?", error("bad header")); continue; }
            Cues cues = parts.length == 3 ? Cues.parse(parts[2]) : null;
            String id = parts[0];
            int n = Integer.parseInt(parts[1]);
            byte[] buf = new byte[n];
            in.readFully(buf);
            String text = new String(buf, StandardCharsets.UTF_8);
            inflight.acquire();
            pool.submit(() -> {
                try {
                    reply(id, annotate(pipeline, text, cues));
                } catch (Throwable t) {  // one bad text is an error on that request only
                    reply(id, error(t.toString()));
                } finally {
                    inflight.release();
                }
            });
        }
        pool.shutdown();
    }

    static String readLine(DataInputStream in) throws IOException {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        int c;
        while ((c = in.read()) != -1 && c != '\n') b.write(c);
        if (c == -1 && b.size() == 0) return null;
        return b.toString(StandardCharsets.UTF_8);
    }

    static void reply(String id, String json) {
        synchronized (out) { out.print(id + "\t" + json + "\n"); out.flush(); }
    }

    static String error(String message) {
        StringBuilder sb = new StringBuilder("{\"error\":");
        str(sb, message);
        return sb.append('}').toString();
    }

    // Which sentences a request wants read: "lemma,lemma|word,word|1|word,word" (see the
    // header comment).
    record Cues(Set<String> lemmas, Set<String> words, boolean openers, Set<String> leaners) {
        static Cues parse(String wire) {
            String[] p = wire.split("\\|", -1);
            return new Cues(new HashSet<>(Arrays.asList(p[0].split(","))),
                            new HashSet<>(Arrays.asList((p.length > 1 ? p[1] : "").split(","))),
                            p.length > 2 && p[2].equals("1"),
                            new HashSet<>(Arrays.asList((p.length > 3 ? p[3] : "").split(","))));
        }
    }

    // Whether the sentence starting at `begin` opens its paragraph: nothing but spaces
    // between the last line break (or the text's start) and it.
    static boolean opensParagraph(String text, int begin) {
        for (int c = begin - 1; c >= 0; c--) {
            char ch = text.charAt(c);
            if (ch == '\n' || ch == '\r') return true;
            if (!Character.isWhitespace(ch)) return false;
        }
        return true;
    }

    static String annotate(StanfordCoreNLP pipeline, String text, Cues cues) {
        // Sentences over the limit are blanked out (every character but a line break becomes a
        // space, so all offsets stay those of the text) and the rest is annotated on its own.
        Annotation split = new Annotation(text);
        splitter.annotate(split);
        StringBuilder skipped = new StringBuilder();
        char[] kept = null;
        int unread = 0;
        StringBuilder unreadWords = new StringBuilder();
        List<CoreMap> sents = split.get(CoreAnnotations.SentencesAnnotation.class);
        boolean[] read = new boolean[sents.size()];
        for (int i = 0; i < sents.size(); i++)
            read[i] = wanted(text, sents.get(i).get(CoreAnnotations.TokensAnnotation.class), cues);
        // a read sentence with a leaning word (a pronoun) needs the sentence before it in its
        // paragraph: what that one is about says what the pronoun stands for
        for (int i = sents.size() - 1; i > 0 && cues != null; i--) {
            List<CoreLabel> tokens = sents.get(i).get(CoreAnnotations.TokensAnnotation.class);
            if (read[i] && !opensParagraph(text, tokens.get(0).beginPosition())
                    && tokens.stream().anyMatch(t -> cues.leaners().contains(t.word().toLowerCase())))
                read[i - 1] = true;
        }
        for (int i = 0; i < sents.size(); i++) {
            List<CoreLabel> tokens = sents.get(i).get(CoreAnnotations.TokensAnnotation.class);
            boolean tooLong = tokens.size() > maxSentenceTokens;
            if (!tooLong && read[i]) continue;
            int begin = tokens.get(0).beginPosition(), end = tokens.get(tokens.size() - 1).endPosition();
            if (kept == null) kept = text.toCharArray();
            for (int c = begin; c < end; c++) if (kept[c] != '\n' && kept[c] != '\r') kept[c] = ' ';
            if (!tooLong) {
                unread++;
                for (CoreLabel t : tokens) {
                    if (unreadWords.length() > 0) unreadWords.append(',');
                    str(unreadWords, t.word());
                }
                continue;
            }
            if (skipped.length() > 0) skipped.append(',');
            skipped.append('[').append(begin).append(',').append(end).append(',')
                   .append(tokens.size()).append(']');
        }
        Annotation doc = new Annotation(kept == null ? text : new String(kept));
        pipeline.annotate(doc);
        StringBuilder sb = new StringBuilder("{\"unread\":").append(unread)
            .append(",\"unread_words\":[").append(unreadWords).append("],\"skipped\":[").append(skipped).append("],\"sentences\":[");
        List<CoreMap> sentences = doc.get(CoreAnnotations.SentencesAnnotation.class);
        for (int s = 0; s < sentences.size(); s++) {
            CoreMap sent = sentences.get(s);
            if (s > 0) sb.append(',');
            sb.append("{\"tokens\":[");
            List<CoreLabel> tokens = sent.get(CoreAnnotations.TokensAnnotation.class);
            for (int i = 0; i < tokens.size(); i++) {
                CoreLabel t = tokens.get(i);
                if (i > 0) sb.append(',');
                sb.append('[');
                str(sb, t.word()); sb.append(',');
                str(sb, t.lemma()); sb.append(',');
                str(sb, t.tag()); sb.append(',');
                str(sb, t.ner()); sb.append(',');
                str(sb, t.get(CoreAnnotations.NormalizedNamedEntityTagAnnotation.class)); sb.append(',');
                sb.append(t.beginPosition()).append(',').append(t.endPosition()).append(']');
            }
            sb.append("],\"deps\":[");
            SemanticGraph g = sent.get(
                SemanticGraphCoreAnnotations.EnhancedPlusPlusDependenciesAnnotation.class);
            boolean first = true;
            if (g != null) {
                for (var root : g.getRoots()) {
                    if (!first) sb.append(',');
                    first = false;
                    sb.append("[\"root\",0,").append(root.index()).append(']');
                }
                for (SemanticGraphEdge e : g.edgeIterable()) {
                    if (!first) sb.append(',');
                    first = false;
                    sb.append('[');
                    str(sb, e.getRelation().toString());
                    sb.append(',').append(e.getGovernor().index()).append(',')
                      .append(e.getDependent().index()).append(']');
                }
            }
            sb.append("],\"mentions\":[");
            List<CoreMap> mentions = sent.get(CoreAnnotations.MentionsAnnotation.class);
            int sentBegin = sent.get(CoreAnnotations.TokenBeginAnnotation.class);
            if (mentions != null) {
                for (int m = 0; m < mentions.size(); m++) {
                    CoreMap mention = mentions.get(m);
                    if (m > 0) sb.append(',');
                    int b = mention.get(CoreAnnotations.TokenBeginAnnotation.class) - sentBegin;
                    int e = mention.get(CoreAnnotations.TokenEndAnnotation.class) - sentBegin;
                    String norm = mention.get(CoreAnnotations.NormalizedNamedEntityTagAnnotation.class);
                    Timex timex = mention.get(TimeAnnotations.TimexAnnotation.class);
                    if (timex != null && timex.value() != null) norm = timex.value();
                    sb.append('[').append(b).append(',').append(e).append(',');
                    str(sb, mention.get(CoreAnnotations.NamedEntityTagAnnotation.class));
                    sb.append(',');
                    str(sb, norm);
                    sb.append(']');
                }
            }
            sb.append("]}");
        }
        return sb.append("]}").toString();
    }

    // Whether a request wants a sentence read: every sentence without cues; with them, one
    // that opens a paragraph (if asked) or may say what the reader looks for.
    static boolean wanted(String text, List<CoreLabel> tokens, Cues cues) {
        if (cues == null) return true;
        if (cues.openers() && opensParagraph(text, tokens.get(0).beginPosition())) return true;
        return hasCue(tokens, cues);
    }

    // A digit, a cue word, or a word that is a cue lemma as some verb.
    static boolean hasCue(List<CoreLabel> tokens, Cues cues) {
        Morphology morphology = MORPHOLOGY.get();
        for (CoreLabel t : tokens) {
            String w = t.word();
            for (int i = 0; i < w.length(); i++) if (Character.isDigit(w.charAt(i))) return true;
            String lower = w.toLowerCase();
            if (cues.words().contains(lower)) return true;
            for (String tag : VERB_TAGS) if (cues.lemmas().contains(morphology.lemma(lower, tag))) return true;
        }
        return false;
    }

    static void str(StringBuilder sb, String s) {
        if (s == null) { sb.append("null"); return; }
        sb.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"': sb.append("\\\""); break;
                case '\\': sb.append("\\\\"); break;
                default:
                    if (c < 0x20) sb.append(String.format("\\u%04x", (int) c));
                    else sb.append(c);
            }
        }
        sb.append('"');
    }
}

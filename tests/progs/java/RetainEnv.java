// Keeps $RETAIN_MIB MiB of byte arrays live (256 KiB each), runs a full GC,
// prints "retained=MIB", then holds for HOLD_MS and exits: a bench arm's
// JVM whose old gen after GC is known (tests/e2e/bench_jvm.sh sets
// RETAIN_MIB per arm).  Usage: RETAIN_MIB=N java RetainEnv HOLD_MS
public class RetainEnv {
    public static void main(String[] a) throws Exception {
        int mib = Integer.parseInt(System.getenv("RETAIN_MIB"));
        byte[][] keep = new byte[mib * 4][];
        for (int i = 0; i < keep.length; i++) keep[i] = new byte[256 << 10];
        System.gc();
        System.out.println("retained=" + mib);
        System.out.flush();
        Thread.sleep(Long.parseLong(a[0]));
        if (keep[keep.length - 1].length == 0) System.out.println("never");
    }
}

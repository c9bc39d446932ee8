// A Java heap with free but touched pages: CHURN MiB of 256 KiB arrays
// allocated, touched and dropped (young GCs free them, the pages stay
// resident), LIVE MiB kept, then "held" and, under tidemark record, the end
// of the work marked ("end" to $TIDEMARK_MARK), and HOLD_MS idle before
// "done".  Usage: java HeapChurn CHURN LIVE HOLD_MS
public class HeapChurn {
    static byte[] sink;

    public static void main(String[] a) throws Exception {
        int churn = Integer.parseInt(a[0]), live = Integer.parseInt(a[1]);
        long holdMs = Long.parseLong(a[2]);
        byte[][] keep = new byte[live][];
        for (int i = 0; i < live; i++) {
            keep[i] = new byte[1 << 20];
            for (int j = 0; j < keep[i].length; j += 4096) keep[i][j] = 1;
        }
        for (int i = 0; i < churn * 4; i++) {
            sink = new byte[256 << 10];
            for (int j = 0; j < sink.length; j += 4096) sink[j] = 1;
        }
        sink = null;
        System.out.println("held live=" + live + " MiB");
        System.out.flush();
        String m = System.getenv("TIDEMARK_MARK");
        if (m != null)
            try (java.io.FileWriter w = new java.io.FileWriter(m)) {
                w.write("end\n");
            }
        Thread.sleep(holdMs);
        long sum = 0;
        for (byte[] k : keep) sum += k[0];
        System.out.println("done " + sum);
    }
}

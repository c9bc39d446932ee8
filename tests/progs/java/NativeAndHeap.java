// Native memory beside the Java heap: DIRECT MiB of direct byte buffers
// (HotSpot allocates them with malloc: the heap shim counts them) and HEAP
// MiB of byte arrays on the Java heap (HotSpot maps it itself: not malloc),
// all touched and kept for HOLD_MS, with a few threads doing the same.
// Prints "held" and "done" lines; between them, under tidemark record, it
// marks the end of its work.  Usage: java NativeAndHeap DIRECT HEAP HOLD_MS [ARRAY]
// ARRAY: the bytes of each array (default 256 KiB; 262128 makes each array
// with its 16-byte header 256 KiB, so that G1's 1 MiB regions hold four
// each with no filled-in end, and Java heap used is all touched).
import java.nio.ByteBuffer;

public class NativeAndHeap {
    public static void main(String[] a) throws Exception {
        int direct = Integer.parseInt(a[0]), heap = Integer.parseInt(a[1]);
        long holdMs = Long.parseLong(a[2]);
        int array = a.length > 3 ? Integer.parseInt(a[3]) : 256 << 10;
        ByteBuffer[] nat = new ByteBuffer[direct];
        for (int i = 0; i < direct; i++) {
            nat[i] = ByteBuffer.allocateDirect(1 << 20);
            for (int j = 0; j < (1 << 20); j += 4096) nat[i].put(j, (byte) 1);
        }
        byte[][] keep = new byte[(int) (((long) heap << 20) / array)][];
        for (int i = 0; i < keep.length; i++) {
            keep[i] = new byte[array];
            for (int j = 0; j < keep[i].length; j += 4096) keep[i][j] = 1;
        }
        Thread[] ts = new Thread[4];
        for (int t = 0; t < ts.length; t++) {
            ts[t] = new Thread(() -> {
                ByteBuffer b = ByteBuffer.allocateDirect(1 << 16);
                b.put(0, (byte) 1);
            });
            ts[t].start();
        }
        for (Thread t : ts) t.join();
        System.out.println("held direct=" + direct + " MiB heap=" + heap + " MiB");
        System.out.flush();
        endMark();
        Thread.sleep(holdMs);
        long sum = 0;
        for (ByteBuffer b : nat) sum += b.get(0);
        for (byte[] k : keep) sum += k[0];
        System.out.println("done " + sum);
    }

    // Under tidemark record, the work ends here ("end" to $TIDEMARK_MARK):
    // what it holds from now on is measured after the work (with --settle).
    static void endMark() throws java.io.IOException {
        String m = System.getenv("TIDEMARK_MARK");
        if (m == null) return;
        try (java.io.FileWriter w = new java.io.FileWriter(m)) {
            w.write("end\n");
        }
    }
}

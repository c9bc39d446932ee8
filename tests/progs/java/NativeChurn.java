// Native memory churned by a running JVM, for `heap attach`
// (tests/e2e/heap_attach_jvm.sh): allocates direct byte buffers of 64 KiB
// (HotSpot takes them from malloc through libjvm.so's relocation entries),
// keeping the last RING of them, until SECONDS have passed or the file END
// exists; then prints a checksum that depends only on RING and exits 0.
// Usage: java NativeChurn RING SECONDS [END]
import java.io.File;
import java.nio.ByteBuffer;

public class NativeChurn {
    public static void main(String[] a) throws Exception {
        int ring = Integer.parseInt(a[0]);
        long until = System.currentTimeMillis() + Long.parseLong(a[1]) * 1000;
        File end = a.length > 2 ? new File(a[2]) : null;
        ByteBuffer[] keep = new ByteBuffer[ring];
        long n = 0;
        System.out.println("churning " + ring + " buffers");
        while (System.currentTimeMillis() < until && (end == null || !end.exists())) {
            for (int i = 0; i < ring; i++, n++) {
                keep[i] = ByteBuffer.allocateDirect(64 << 10);
                keep[i].put(0, (byte) i);
            }
            Thread.sleep(20);
        }
        long sum = 0;
        for (int i = 0; i < ring; i++)
            if (keep[i] != null) sum += keep[i].get(0);
        System.out.println("sum " + sum + (n >= ring ? " ok" : " short"));
    }
}

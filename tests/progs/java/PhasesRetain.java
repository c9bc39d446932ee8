// For each MIB argument: marks "phase-I" (a line to $TIDEMARK_MARK), waits
// GAP_MS, keeps MIB more MiB of byte arrays live (256 KiB each), runs a
// full GC, waits GAP_MS; then exits.  The old gen after GC grows by MIB in
// each phase (tests/e2e/phases.sh).  Usage: java PhasesRetain GAP_MS MIB...
import java.io.FileOutputStream;
import java.util.ArrayList;
import java.util.List;

public class PhasesRetain {
    public static void main(String[] a) throws Exception {
        long gap = Long.parseLong(a[0]);
        String fifo = System.getenv("TIDEMARK_MARK");
        List<byte[]> keep = new ArrayList<>();
        for (int p = 1; p < a.length; p++) {
            if (fifo != null) {
                try (FileOutputStream out = new FileOutputStream(fifo)) {
                    out.write(("phase-" + p + "\n").getBytes());
                }
            }
            Thread.sleep(gap);
            for (int i = 0; i < Integer.parseInt(a[p]) * 4; i++) keep.add(new byte[256 << 10]);
            System.gc();
            Thread.sleep(gap);
        }
        System.out.println("kept " + keep.size());
    }
}

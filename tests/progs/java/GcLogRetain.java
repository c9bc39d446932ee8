// Retains N MiB of byte arrays while churning garbage through several young
// collections, calls System.gc(), prints the old gen's use after it (from
// the JVM's own MemoryPoolMXBean), then idles for a second and exits.
// Usage: java GcLogRetain MIB
import java.lang.management.ManagementFactory;
import java.lang.management.MemoryPoolMXBean;

public class GcLogRetain {
    public static void main(String[] a) throws Exception {
        int mib = Integer.parseInt(a[0]);
        byte[][] keep = new byte[mib * 4][];
        long sink = 0;
        for (int i = 0; i < keep.length; i++) {
            keep[i] = new byte[256 << 10];
            for (int j = 0; j < 64; j++) sink += new byte[64 << 10].length;
        }
        System.gc();
        long old = -1, heap = 0;
        for (MemoryPoolMXBean p : ManagementFactory.getMemoryPoolMXBeans()) {
            String n = p.getName();
            if (n.contains("Old Gen") || n.contains("Tenured"))
                old = p.getCollectionUsage().getUsed();
        }
        System.out.println("old_after_gc " + old + " sink " + sink);
        Thread.sleep(1000);
        if (keep[keep.length - 1].length == 0) System.out.println("never");
    }
}

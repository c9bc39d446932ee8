// Keeps N MiB of byte arrays live, collects, writes its pid to the file
// READY and idles until its stdin closes (tests/e2e/runtime_jvm.sh reads
// its Java heap meanwhile).  Usage: java Retain MIB READY
public class Retain {
    public static void main(String[] a) throws Exception {
        int mib = Integer.parseInt(a[0]);
        byte[][] keep = new byte[mib * 4][];
        for (int i = 0; i < keep.length; i++) keep[i] = new byte[256 << 10];
        System.gc();
        java.nio.file.Path tmp = java.nio.file.Paths.get(a[1] + ".tmp");
        java.nio.file.Files.writeString(tmp, ProcessHandle.current().pid() + "\n");
        java.nio.file.Files.move(tmp, java.nio.file.Paths.get(a[1]));
        while (System.in.read() >= 0) { }
        if (keep[keep.length - 1].length == 0) System.out.println("never");
    }
}

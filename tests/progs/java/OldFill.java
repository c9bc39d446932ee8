// A JVM whose old gen fills with one class: 300,000 OldFill$Sidecar objects
// (about 19 MiB), held until stdin closes.  tests/e2e/snap_jvm.sh takes its
// class histogram and heap dump with `tidemark snap` and checks that both
// name the class.
//
// `OldFill steps`: once a line is read on stdin, fills the old gen in 10 steps of 30,000, a System.gc()
// after each (300 ms apart), then a System.gc() every 200 ms until stdin
// closes, so that a GC log shows the old gen after GC rising, then staying
// full GC after GC (tests/e2e/guard_jvm.sh's jvm_old rule).
import java.util.ArrayList;

public class OldFill {
    static class Sidecar {
        long a, b, c, d, e, f;
    }

    static ArrayList<Sidecar> pool = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        boolean steps = args.length > 0 && args[0].equals("steps");
        if (steps) {
            System.out.println("waiting");
            System.out.flush();
            while (System.in.read() != '\n') {
            }
        }
        for (int s = 0; s < (steps ? 10 : 1); s++) {
            for (int i = 0; i < (steps ? 30000 : 300000); i++) pool.add(new Sidecar());
            System.gc(); // into the old gen
            if (steps) {
                System.out.println("step " + (s + 1));
                Thread.sleep(300);
            }
        }
        if (steps) {
            Thread gc = new Thread(() -> {
                try {
                    for (;;) {
                        Thread.sleep(200);
                        System.gc();
                    }
                } catch (InterruptedException e) {
                }
            });
            gc.setDaemon(true);
            gc.start();
        }
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() >= 0) {
        }
        System.out.println(pool.size());
    }
}

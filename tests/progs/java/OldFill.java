// A JVM whose old gen fills with one class: 300,000 OldFill$Sidecar objects
// (about 19 MiB), held until stdin closes.  tests/e2e/snap_jvm.sh takes its
// class histogram and heap dump with `tidemark snap` and checks that both
// name the class.
import java.util.ArrayList;

public class OldFill {
    static class Sidecar {
        long a, b, c, d, e, f;
    }

    static ArrayList<Sidecar> pool = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 300000; i++) pool.add(new Sidecar());
        System.gc(); // into the old gen
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() >= 0) {
        }
        System.out.println(pool.size());
    }
}

// A JVM whose leak is one map: Leak.index holds 20,000 byte arrays of 1,000
// bytes under Integer keys; a list holds 3,000 smaller ones beside it.
// tests/e2e/hprof_holders.sh dumps it and checks that `tidemark hprof
// holders` names the map, its exact retained size and its path.
import java.util.ArrayList;
import java.util.HashMap;

public class Leak {
    static HashMap<Integer, byte[]> index = new HashMap<>();
    static ArrayList<Object> other = new ArrayList<>();

    public static void main(String[] args) throws Exception {
        for (int i = 0; i < 20000; i++) index.put(i, new byte[1000]);
        for (int i = 0; i < 3000; i++) other.add(new byte[500]);
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() >= 0) {
        }
        System.out.println(index.size() + other.size());
    }
}

// A JVM whose retained heap is known: 10,000 Leaf and 5,000 Node objects,
// 300 byte arrays and 200 String arrays, held until stdin closes.
// tests/e2e/hprof_jvm.sh dumps it and compares tidemark hprof with jcmd.
import java.util.ArrayList;
import java.util.List;

public class Hold {
    static class Leaf {
        int a;
        long b;
        Object c;
    }

    static class Node extends Leaf {
        byte d;
        short e;
        Node next;
    }

    public static void main(String[] args) throws Exception {
        List<Object> keep = new ArrayList<>();
        for (int i = 0; i < 10000; i++) keep.add(new Leaf());
        for (int i = 0; i < 5000; i++) keep.add(new Node());
        for (int i = 0; i < 300; i++) keep.add(new byte[1000 + i]);
        for (int i = 0; i < 200; i++) keep.add(new String[7]);
        System.out.println("ready");
        System.out.flush();
        while (System.in.read() >= 0) {
        }
        System.out.println(keep.size());
    }
}

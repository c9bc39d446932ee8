// A heap of about SIZE_MIB MiB of live objects in the shapes a node holds
// (records with fields, byte[] payloads, Strings, HashMap entries), for
// bench/hprof/run.sh to dump and read.
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;

public class Big {
    static class Rec {
        long id;
        int height;
        Object payload;
        Rec prev;
    }

    public static void main(String[] args) throws Exception {
        long target = Long.parseLong(args[0]) << 20, made = 0;
        List<Object> keep = new ArrayList<>();
        HashMap<String, Rec> index = new HashMap<>();
        Rec prev = null;
        for (int i = 0; made < target; i++) {
            Rec r = new Rec();
            r.id = i;
            r.height = i / 100;
            r.prev = prev;
            r.payload = new byte[64 + (i % 512)];
            prev = r;
            if (i % 4 == 0)
                index.put("tx-" + i, r);
            else
                keep.add(r);
            made += 32 + 16 + 64 + (i % 512) + (i % 4 == 0 ? 90 : 4);
        }
        System.out.println("ready " + keep.size() + " " + index.size());
        System.out.flush();
        while (System.in.read() >= 0) {
        }
        System.out.println(keep.size() + index.size());
    }
}

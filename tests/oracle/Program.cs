// oracle — the independent reference for libclrsig's decoder and formatter.
//
//   oracle blobs ASSEMBLY... [--framework] [--skip NAME]... [--exclude FILE]... [--max N]
//                [--source LABEL] [-o FILE] [--stats]
//   oracle bench ASSEMBLY [--dump FILE]
//   oracle decode KIND HEX...
//   oracle check FILE...
//   oracle fill FILE [-o OUT]
//
// An ASSEMBLY that is not an existing path is looked up in the shared framework directory of
// the running runtime; a directory stands for every managed .dll in it.
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Runtime.InteropServices;
using System.Text;

namespace ClrSigOracle;

static class Program
{
    static int Main(string[] args)
    {
        try
        {
            return args.Length == 0 ? Usage() : args[0] switch
            {
                "blobs" => Blobs(args),
                "bench" => Bench(args),
                "decode" => DecodeCmd(args),
                "check" => Check(args),
                "fill" => Fill(args),
                _ => Usage(),
            };
        }
        catch (Exception e) when (e is ArgumentException or IOException or FormatException or BadImageFormatException)
        {
            Console.Error.WriteLine("oracle: " + e.Message);
            return 2;
        }
    }

    static int Usage()
    {
        Console.Error.WriteLine(
            "usage: oracle blobs ASSEMBLY... [--framework] [--skip NAME]... [--exclude FILE]... [--max N] [--source LABEL] [-o FILE] [--stats]\n" +
            "       oracle bench ASSEMBLY [--dump FILE]\n" +
            "       oracle decode KIND HEX...      (KIND: method|field|property|locals|typespec|methodspec)\n" +
            "       oracle check FILE...           (re-derive csharp/ildasm of sigblobs records with SRM)\n" +
            "       oracle fill FILE [-o OUT]      (complete blob:/kind: records with csharp/ildasm/source)");
        return 2;
    }

    static string FrameworkDir => RuntimeEnvironment.GetRuntimeDirectory();

    static IEnumerable<string> Expand(string arg)
    {
        string path = File.Exists(arg) || Directory.Exists(arg) ? arg : Path.Combine(FrameworkDir, arg);
        if (Directory.Exists(path))
            return Directory.GetFiles(path, "*.dll").Order(StringComparer.Ordinal);
        if (!File.Exists(path))
            throw new ArgumentException($"no such assembly: {arg}");
        return new[] { path };
    }

    static string Arg(string[] a, ref int i) =>
        ++i < a.Length ? a[i] : throw new ArgumentException($"{a[i - 1]} needs a value");

    // ------------------------------------------------------------------ collecting blobs

    sealed record Blob(BlobKind Kind, byte[] Bytes, string Key)
    {
        public string Source = "";
        public Decoded? Decoded;
        public int[] Features = Array.Empty<int>();
    }

    static string Key(BlobKind k, byte[] b) => Sig.KindName(k) + ":" + Convert.ToHexString(b);

    /// <summary>Every signature blob of one assembly, with its kind; null when the file has no metadata.</summary>
    static List<(BlobKind, byte[])>? Collect(string path)
    {
        using var fs = File.OpenRead(path);
        using var pe = new PEReader(fs);
        if (!pe.HasMetadata) return null;
        var md = pe.GetMetadataReader();
        var list = new List<(BlobKind, byte[])>();
        void Add(BlobKind k, BlobHandle h) { if (!h.IsNil) list.Add((k, md.GetBlobBytes(h))); }

        foreach (var h in md.MethodDefinitions) Add(BlobKind.Method, md.GetMethodDefinition(h).Signature);
        foreach (var h in md.MemberReferences)
        {
            var s = md.GetMemberReference(h).Signature;
            var b = md.GetBlobBytes(s);
            list.Add((b.Length > 0 && b[0] == 0x06 ? BlobKind.Field : BlobKind.Method, b));
        }
        foreach (var h in md.FieldDefinitions) Add(BlobKind.Field, md.GetFieldDefinition(h).Signature);
        foreach (var h in md.PropertyDefinitions) Add(BlobKind.Property, md.GetPropertyDefinition(h).Signature);
        for (int row = 1, n = md.GetTableRowCount(TableIndex.StandAloneSig); row <= n; row++)
        {
            var b = md.GetBlobBytes(md.GetStandaloneSignature(MetadataTokens.StandaloneSignatureHandle(row)).Signature);
            // 0x06: a field signature, as Windows-PDB local constants are stored (not in the framework).
            list.Add((b.Length == 0 ? BlobKind.Method : b[0] == 0x07 ? BlobKind.Locals : b[0] == 0x06 ? BlobKind.Field : BlobKind.Method, b));
        }
        for (int row = 1, n = md.GetTableRowCount(TableIndex.TypeSpec); row <= n; row++)
            Add(BlobKind.TypeSpec, md.GetTypeSpecification(MetadataTokens.TypeSpecificationHandle(row)).Signature);
        for (int row = 1, n = md.GetTableRowCount(TableIndex.MethodSpec); row <= n; row++)
            Add(BlobKind.MethodSpec, md.GetMethodSpecification(MetadataTokens.MethodSpecificationHandle(row)).Signature);
        return list;
    }

    static int Blobs(string[] a)
    {
        var inputs = new List<string>();
        var skip = new HashSet<string>(StringComparer.OrdinalIgnoreCase);
        var excludes = new List<string>();
        int max = int.MaxValue;
        string? label = null, output = null;
        bool stats = false;
        for (int i = 1; i < a.Length; i++)
        {
            switch (a[i])
            {
                case "--max": max = int.Parse(Arg(a, ref i)); break;
                case "--source": label = Arg(a, ref i); break;
                case "--skip": skip.Add(Arg(a, ref i)); break;
                case "--exclude": excludes.Add(Arg(a, ref i)); break;
                case "--framework": inputs.AddRange(Expand(FrameworkDir)); break;
                case "-o": output = Arg(a, ref i); break;
                case "--stats": stats = true; break;
                default:
                    if (a[i].StartsWith("-")) throw new ArgumentException($"unknown option {a[i]}");
                    inputs.AddRange(Expand(a[i]));
                    break;
            }
        }
        if (inputs.Count == 0) throw new ArgumentException("no assembly given");

        // Blobs already in the excluded files are not output again.
        var excluded = new HashSet<string>();
        foreach (var f in excludes)
            foreach (var r in ReadRecords(f))
                if (r.TryGetValue("blob", out var hex) && r.TryGetValue("kind", out var kind))
                    excluded.Add(Key(Sig.ParseKind(kind), ParseHex(hex)));

        var blobs = new Dictionary<string, Blob>();
        var assembliesOf = stats ? new Dictionary<string, List<string>>() : null;
        int assemblies = 0, rejected = 0;
        foreach (var path in inputs.Distinct())
        {
            string name = Path.GetFileName(path);
            if (skip.Contains(name)) continue;
            List<(BlobKind, byte[])>? list;
            try { list = Collect(path); }
            catch (BadImageFormatException) { list = null; }
            if (list == null) continue;
            assemblies++;
            foreach (var (k, bytes) in list)
            {
                string key = Key(k, bytes);
                if (assembliesOf != null)
                {
                    if (!assembliesOf.TryGetValue(key, out var names)) assembliesOf[key] = names = new List<string>();
                    if (names.Count == 0 || names[^1] != name) names.Add(name);
                }
                if (excluded.Contains(key) || blobs.ContainsKey(key)) continue;
                var blob = new Blob(k, bytes, key) { Source = label ?? "srm " + name };
                try { blob.Decoded = Sig.Decode(k, bytes); }
                catch (BadImageFormatException e)
                {
                    rejected++;
                    Console.Error.WriteLine($"oracle: SRM rejects {key} from {name}: {e.Message}");
                }
                blobs.Add(key, blob);
            }
        }

        var interner = new Dictionary<string, int>();
        var good = blobs.Values.Where(b => b.Decoded != null).ToList();
        foreach (var b in good) b.Features = Features.Of(b.Decoded!, interner);
        var chosen = Select(good, max, interner.Count);
        Console.Error.WriteLine($"oracle: {assemblies} assemblies, {blobs.Count} distinct blobs ({rejected} rejected by SRM), " +
                                $"{interner.Count} features, {chosen.Count} records");
        if (assembliesOf != null) Stats(good, interner, assembliesOf);

        var sb = new StringBuilder();
        string exe = Path.GetRelativePath(Environment.CurrentDirectory, typeof(Program).Assembly.Location);
        sb.Append("# generated by: dotnet ").Append(exe).Append(' ').AppendJoin(' ', a).Append('\n');
        sb.Append("# runtime: .NET ").Append(Environment.Version).Append(" (").Append(FrameworkDir.TrimEnd('/')).Append(")\n");
        sb.Append("# expected text: System.Reflection.Metadata SignatureDecoder + tests/oracle renderer, no resolver\n");
        foreach (var b in chosen)
        {
            sb.Append('\n');
            sb.Append("blob: ").Append(Hex(b.Bytes)).Append('\n');
            sb.Append("kind: ").Append(Sig.KindName(b.Kind)).Append('\n');
            sb.Append("csharp: ").Append(Sig.Render(b.Decoded!, Style.CSharp)).Append('\n');
            sb.Append("ildasm: ").Append(Sig.Render(b.Decoded!, Style.ILDasm)).Append('\n');
            sb.Append("source: ").Append(b.Source).Append('\n');
        }
        if (output != null) File.WriteAllText(output, sb.ToString());
        else Console.Out.Write(sb.ToString());
        return 0;
    }

    /// <summary>Deterministic variety, in rounds: each round repeatedly takes the blob that adds the
    /// most features not yet covered in this round (ties: shorter, then kind and bytes); when no
    /// blob adds one, the next round starts with nothing covered. Rare shapes come first.</summary>
    static List<Blob> Select(List<Blob> all, int max, int nfeatures)
    {
        var rest = all.OrderBy(b => b.Kind).ThenBy(b => b.Bytes.Length).ThenBy(b => b.Key, StringComparer.Ordinal).ToList();
        if (max >= rest.Count) return rest;
        var chosen = new List<Blob>();
        var seen = new bool[nfeatures];
        int rounds = 1;
        while (chosen.Count < max)
        {
            int best = -1, bestGain = 0;
            for (int i = 0; i < rest.Count; i++)
            {
                int gain = 0;
                foreach (int f in rest[i].Features) if (!seen[f]) gain++;
                if (gain > bestGain || (gain == bestGain && gain > 0 && rest[i].Bytes.Length < rest[best].Bytes.Length))
                    (best, bestGain) = (i, gain);
            }
            if (best < 0)
            {
                Array.Clear(seen);
                rounds++;
                continue;
            }
            foreach (int f in rest[best].Features) seen[f] = true;
            chosen.Add(rest[best]);
            rest.RemoveAt(best);
        }
        Console.Error.WriteLine($"oracle: {rounds} round(s) of feature coverage");
        return chosen.OrderBy(b => b.Kind).ThenBy(b => b.Bytes.Length).ThenBy(b => b.Key, StringComparer.Ordinal).ToList();
    }

    /// <summary>--stats: the rare features, how many distinct blobs carry each, and where.</summary>
    static void Stats(List<Blob> good, Dictionary<string, int> interner, Dictionary<string, List<string>> assembliesOf)
    {
        var names = interner.OrderBy(kv => kv.Value).Select(kv => kv.Key).ToArray();
        var where = new SortedDictionary<string, (int Count, SortedSet<string> Asm)>(StringComparer.Ordinal);
        foreach (var b in good)
            foreach (int f in b.Features)
            {
                if (!Features.IsRare(names[f])) continue;
                if (!where.TryGetValue(names[f], out var e)) where[names[f]] = e = (0, new SortedSet<string>(StringComparer.Ordinal));
                foreach (var n in assembliesOf[b.Key]) e.Asm.Add(n);
                where[names[f]] = (e.Count + 1, e.Asm);
            }
        foreach (var (f, e) in where)
            Console.Error.WriteLine($"  {f,-34} {e.Count,6} blobs  {string.Join(' ', e.Asm.Take(6))}{(e.Asm.Count > 6 ? $" (+{e.Asm.Count - 6})" : "")}");
    }

    // ------------------------------------------------------------------ bench

    static int Bench(string[] a)
    {
        string? asm = null, dump = null;
        for (int i = 1; i < a.Length; i++)
        {
            if (a[i] == "--dump") dump = Arg(a, ref i);
            else if (asm == null && !a[i].StartsWith("-")) asm = a[i];
            else throw new ArgumentException($"unexpected argument {a[i]}");
        }
        if (asm == null) throw new ArgumentException("no assembly given");
        string path = Expand(asm).Single();

        var sigs = new List<byte[]>();
        using (var fs = File.OpenRead(path))
        using (var pe = new PEReader(fs))
        {
            var md = pe.GetMetadataReader();
            foreach (var h in md.MethodDefinitions) sigs.Add(md.GetBlobBytes(md.GetMethodDefinition(h).Signature));
        }
        if (dump != null)
        {
            using var w = new BinaryWriter(File.Create(dump));
            foreach (var s in sigs) { w.Write((uint)s.Length); w.Write(s); }
        }

        // All blobs in one pinned buffer, as the C side has them in one mapped file.
        var offsets = new int[sigs.Count + 1];
        for (int i = 0; i < sigs.Count; i++) offsets[i + 1] = offsets[i] + sigs[i].Length;
        var buffer = GC.AllocateArray<byte>(offsets[^1], pinned: true);
        for (int i = 0; i < sigs.Count; i++) sigs[i].CopyTo(buffer, offsets[i]);

        var sb = new StringBuilder(1024);
        long chars = 0;
        unsafe long Pass()
        {
            long total = 0;
            fixed (byte* p = buffer)
                for (int i = 0; i < sigs.Count; i++)
                {
                    sb.Clear();
                    Sig.Render(sb, Sig.Decode(BlobKind.Method, p + offsets[i], offsets[i + 1] - offsets[i]), Style.CSharp);
                    total += sb.Length;
                }
            return total;
        }
        // Warm up for a second so tiered compilation has settled before timing.
        for (var warm = Stopwatch.StartNew(); warm.ElapsedMilliseconds < 1000;) chars = Pass();
        double best = double.MaxValue;
        for (int rep = 0; rep < 15; rep++)
        {
            var sw = Stopwatch.StartNew();
            Pass();
            best = Math.Min(best, sw.Elapsed.TotalNanoseconds);
        }
        Console.Error.WriteLine($"oracle: {Path.GetFileName(path)}, {chars} characters of text per pass, best of 15 passes");
        Console.WriteLine($"srm: {sigs.Count} signatures, {best / sigs.Count:F1} ns/signature");
        return 0;
    }

    // ------------------------------------------------------------------ decode / check

    static int DecodeCmd(string[] a)
    {
        if (a.Length < 3) return Usage();
        var kind = Sig.ParseKind(a[1]);
        var d = Sig.Decode(kind, ParseHex(string.Join(' ', a.Skip(2))));
        Console.WriteLine("csharp: " + Sig.Render(d, Style.CSharp));
        Console.WriteLine("ildasm: " + Sig.Render(d, Style.ILDasm));
        return 0;
    }

    /// <summary>Compares the csharp/ildasm lines of sigblobs records with SRM's decoding. Records with
    /// error: or mode: (runtime-internal) are outside what SRM can judge and are skipped.</summary>
    static int Check(string[] a)
    {
        int ok = 0, bad = 0, skipped = 0;
        foreach (var file in a.Skip(1))
            foreach (var r in ReadRecords(file))
            {
                if (!r.TryGetValue("blob", out var hex) || !r.TryGetValue("kind", out var kind) ||
                    r.ContainsKey("error") || r.ContainsKey("mode")) { skipped++; continue; }
                string where = $"{file}:{r["@line"]}";
                Decoded d;
                try { d = Sig.Decode(Sig.ParseKind(kind), ParseHex(hex)); }
                catch (BadImageFormatException e) { Console.WriteLine($"{where}: SRM rejects the blob: {e.Message}"); bad++; continue; }
                bool same = true;
                foreach (var (key, style) in new[] { ("csharp", Style.CSharp), ("ildasm", Style.ILDasm) })
                {
                    if (!r.TryGetValue(key, out var want)) continue;
                    string got = Sig.Render(d, style);
                    if (got != want) { Console.WriteLine($"{where}: {key}\n  file: {want}\n  srm:  {got}"); same = false; }
                }
                if (same) ok++; else bad++;
            }
        Console.WriteLine($"check: {ok} agree, {bad} differ, {skipped} skipped");
        return bad == 0 ? 0 : 1;
    }

    /// <summary>Completes hand-written records (blob, kind, optional note) with the text SRM gives.</summary>
    static int Fill(string[] a)
    {
        string? input = null, output = null;
        for (int i = 1; i < a.Length; i++)
        {
            if (a[i] == "-o") output = Arg(a, ref i);
            else if (input == null) input = a[i];
            else throw new ArgumentException($"unexpected argument {a[i]}");
        }
        if (input == null) return Usage();
        var sb = new StringBuilder();
        string exe = Path.GetRelativePath(Environment.CurrentDirectory, typeof(Program).Assembly.Location);
        sb.Append("# generated by: dotnet ").Append(exe).Append(' ').AppendJoin(' ', a).Append('\n');
        sb.Append("# hand-made blobs for shapes no framework assembly has; expected text from\n");
        sb.Append("# System.Reflection.Metadata SignatureDecoder + tests/oracle renderer, no resolver\n");
        foreach (var r in ReadRecords(input))
        {
            var kind = Sig.ParseKind(r["kind"]);
            var bytes = ParseHex(r["blob"]);
            Decoded d;
            try { d = Sig.Decode(kind, bytes); }
            catch (BadImageFormatException e) { throw new ArgumentException($"{input}:{r["@line"]}: SRM rejects the blob: {e.Message}"); }
            sb.Append("\nblob: ").Append(Hex(bytes)).Append('\n');
            sb.Append("kind: ").Append(Sig.KindName(kind)).Append('\n');
            sb.Append("csharp: ").Append(Sig.Render(d, Style.CSharp)).Append('\n');
            sb.Append("ildasm: ").Append(Sig.Render(d, Style.ILDasm)).Append('\n');
            sb.Append("source: srm synthetic (").Append(Path.GetFileName(input)).Append(")\n");
            if (r.TryGetValue("note", out var note)) sb.Append("note: ").Append(note).Append('\n');
        }
        if (output != null) File.WriteAllText(output, sb.ToString());
        else Console.Out.Write(sb.ToString());
        return 0;
    }

    // ------------------------------------------------------------------ sigblobs format

    /// <summary>Records of a sigblobs file: "key: value" lines, records separated by blank lines,
    /// '#' lines are comments. "@line" holds the record's first line number.</summary>
    static IEnumerable<Dictionary<string, string>> ReadRecords(string file)
    {
        Dictionary<string, string>? rec = null;
        int n = 0;
        foreach (var raw in File.ReadLines(file))
        {
            n++;
            string line = raw.TrimEnd('\r');
            if (line.StartsWith('#')) continue;
            if (line.Trim().Length == 0)
            {
                if (rec != null) yield return rec;
                rec = null;
                continue;
            }
            int colon = line.IndexOf(':');
            if (colon < 0) throw new FormatException($"{file}:{n}: expected 'key: value'");
            rec ??= new Dictionary<string, string> { ["@line"] = n.ToString() };
            rec[line[..colon].Trim()] = line[(colon + 1)..].Trim();
        }
        if (rec != null) yield return rec;
    }

    static byte[] ParseHex(string hex) =>
        hex.Split(' ', StringSplitOptions.RemoveEmptyEntries).Select(x => Convert.ToByte(x, 16)).ToArray();

    static string Hex(byte[] b) => string.Join(' ', b.Select(x => x.ToString("X2")));
}

// srmsigs — an independent reproduction of `clrtrace sigs` with System.Reflection.Metadata,
// written from docs/libclrmeta.md ("The sigs command") and docs/libclrsig.md ("Text forms").
//
//   srmsigs sigs ASSEMBLY [--format csharp|ildasm] [--members] [--tokens] [--time]
//   srmsigs facts ASSEMBLY...      C initializers of the layout facts test_meta checks
//
// The output of `sigs` must equal `clrtrace sigs` byte for byte.
using System;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Text;

namespace SrmSigs;

abstract record T;
sealed record Prim(PrimitiveTypeCode C) : T;
sealed record Tok(EntityHandle H, byte Raw) : T;
sealed record Ptr(T E) : T;
sealed record ByRef(T E) : T;
sealed record SzArr(T E) : T;
sealed record Arr(T E, ArrayShape S) : T;
sealed record Inst(T G, ImmutableArray<T> A) : T;
sealed record GP(bool M, int I) : T;
sealed record Mod(T M, T U, bool Req) : T;
sealed record Pin(T E) : T;
sealed record Fn(MethodSignature<T> S) : T;

sealed class Prov : ISignatureTypeProvider<T, object?>
{
    public T GetPrimitiveType(PrimitiveTypeCode c) => new Prim(c);
    public T GetTypeFromDefinition(MetadataReader r, TypeDefinitionHandle h, byte k) => new Tok(h, k);
    public T GetTypeFromReference(MetadataReader r, TypeReferenceHandle h, byte k) => new Tok(h, k);
    public T GetTypeFromSpecification(MetadataReader r, object? c, TypeSpecificationHandle h, byte k) => new Tok(h, k);
    public T GetPointerType(T e) => new Ptr(e);
    public T GetByReferenceType(T e) => new ByRef(e);
    public T GetSZArrayType(T e) => new SzArr(e);
    public T GetArrayType(T e, ArrayShape s) => new Arr(e, s);
    public T GetGenericInstantiation(T g, ImmutableArray<T> a) => new Inst(g, a);
    public T GetGenericTypeParameter(object? c, int i) => new GP(false, i);
    public T GetGenericMethodParameter(object? c, int i) => new GP(true, i);
    public T GetModifiedType(T m, T u, bool req) => new Mod(m, u, req);
    public T GetPinnedType(T e) => new Pin(e);
    public T GetFunctionPointerType(MethodSignature<T> s) => new Fn(s);
}

sealed class R
{
    readonly MetadataReader md;
    readonly bool cs;
    readonly SignatureDecoder<T, object?> dec;
    TypeDefinitionHandle ctxType; MethodDefinitionHandle ctxMethod;
    readonly List<TypeSpecificationHandle> expanding = new();
    public R(MetadataReader md, bool cs) { this.md = md; this.cs = cs; dec = new SignatureDecoder<T, object?>(new Prov(), md, null); }

    static string Prim(PrimitiveTypeCode c, bool cs) => c switch
    {
        PrimitiveTypeCode.Void => "void", PrimitiveTypeCode.Boolean => "bool", PrimitiveTypeCode.Char => "char",
        PrimitiveTypeCode.SByte => cs ? "sbyte" : "int8", PrimitiveTypeCode.Byte => cs ? "byte" : "uint8",
        PrimitiveTypeCode.Int16 => cs ? "short" : "int16", PrimitiveTypeCode.UInt16 => cs ? "ushort" : "uint16",
        PrimitiveTypeCode.Int32 => cs ? "int" : "int32", PrimitiveTypeCode.UInt32 => cs ? "uint" : "uint32",
        PrimitiveTypeCode.Int64 => cs ? "long" : "int64", PrimitiveTypeCode.UInt64 => cs ? "ulong" : "uint64",
        PrimitiveTypeCode.Single => cs ? "float" : "float32", PrimitiveTypeCode.Double => cs ? "double" : "float64",
        PrimitiveTypeCode.IntPtr => cs ? "nint" : "native int", PrimitiveTypeCode.UIntPtr => cs ? "nuint" : "native uint",
        PrimitiveTypeCode.String => "string", PrimitiveTypeCode.Object => "object",
        PrimitiveTypeCode.TypedReference => cs ? "TypedReference" : "typedref", _ => throw new Exception(),
    };

    string StripArity(string n)
    {
        if (!cs) return n;
        int t = n.LastIndexOf('`');
        if (t < 0 || t + 1 >= n.Length) return n;
        for (int i = t + 1; i < n.Length; i++) if (n[i] < '0' || n[i] > '9') return n;
        return n.Substring(0, t);
    }

    // (ns, name, enclosing) of a TypeDef/TypeRef.
    (string ns, string name, EntityHandle enc) Info(EntityHandle h)
    {
        if (h.Kind == HandleKind.TypeDefinition)
        {
            var td = md.GetTypeDefinition((TypeDefinitionHandle)h);
            return (md.GetString(td.Namespace), md.GetString(td.Name), td.GetDeclaringType());
        }
        var tr = md.GetTypeReference((TypeReferenceHandle)h);
        EntityHandle enc = tr.ResolutionScope.Kind == HandleKind.TypeReference && !tr.ResolutionScope.IsNil ? tr.ResolutionScope : default;
        return (md.GetString(tr.Namespace), md.GetString(tr.Name), enc);
    }

    string Scope(TypeReferenceHandle h)
    {
        for (int i = 0; i <= 32; i++)
        {
            var tr = md.GetTypeReference(h);
            var s = tr.ResolutionScope;
            if (s.Kind == HandleKind.TypeReference && !s.IsNil) { h = (TypeReferenceHandle)s; continue; }
            if (s.IsNil) return "";
            if (s.Kind == HandleKind.AssemblyReference) return md.GetString(md.GetAssemblyReference((AssemblyReferenceHandle)s).Name);
            if (s.Kind == HandleKind.ModuleReference) return ".module " + md.GetString(md.GetModuleReference((ModuleReferenceHandle)s).Name);
            return "";
        }
        return "";
    }

    public void Name(StringBuilder sb, EntityHandle h)
    {
        var chain = new List<EntityHandle>();
        for (var c = h; !c.IsNil; c = Info(c).enc) chain.Add(c);
        for (int i = chain.Count - 1; i >= 0; i--)
        {
            var (ns, name, _) = Info(chain[i]);
            if (i == chain.Count - 1)
            {
                if (!cs && chain[i].Kind == HandleKind.TypeReference)
                {
                    string sc = Scope((TypeReferenceHandle)chain[i]);
                    if (sc.Length > 0) sb.Append('[').Append(sc).Append(']');
                }
                if (ns.Length > 0) sb.Append(ns).Append('.');
            }
            else sb.Append(cs ? "." : "/");
            sb.Append(StripArity(name));
        }
    }

    public void Token(StringBuilder sb, EntityHandle h, string? kw)
    {
        if (h.Kind == HandleKind.TypeSpecification)
        {
            var ts = (TypeSpecificationHandle)h;
            if (expanding.Contains(ts)) throw new Exception("cycle");
            var t = md.GetTypeSpecification(ts).DecodeSignature(new Prov(), null);
            expanding.Add(ts);
            Type(sb, t);
            expanding.RemoveAt(expanding.Count - 1);
            return;
        }
        if (kw != null && !cs) sb.Append(kw).Append(' ');
        Name(sb, h);
    }

    bool IsInAttr(T m)
    {
        if (m is not Tok k || k.H.Kind == HandleKind.TypeSpecification) return false;
        var (ns, name, enc) = Info(k.H);
        return enc.IsNil && ns == "System.Runtime.InteropServices" && name == "InAttribute";
    }

    string? GpName(bool isMethod, int index)
    {
        GenericParameterHandleCollection gps;
        if (isMethod) { if (ctxMethod.IsNil) return null; gps = md.GetMethodDefinition(ctxMethod).GetGenericParameters(); }
        else { if (ctxType.IsNil) return null; gps = md.GetTypeDefinition(ctxType).GetGenericParameters(); }
        foreach (var g in gps) { var p = md.GetGenericParameter(g); if (p.Index == index) return md.GetString(p.Name); }
        return null;
    }

    static bool Blank(ArrayShape shape, int i, bool cs) =>
        i >= shape.Sizes.Length && (i >= shape.LowerBounds.Length || (cs && shape.LowerBounds[i] == 0));

    void Shape(StringBuilder sb, ArrayShape shape)
    {
        sb.Append('[');
        if (shape.Rank == 1 && Blank(shape, 0, cs)) sb.Append(cs ? "*" : "...");
        else
            for (int i = 0; i < shape.Rank; i++)
            {
                if (i > 0) sb.Append(',');
                if (Blank(shape, i, cs)) continue;
                bool hasLo = i < shape.LowerBounds.Length, hasSize = i < shape.Sizes.Length;
                long lo = hasLo ? shape.LowerBounds[i] : 0;
                if (hasLo) sb.Append(lo).Append("...");
                if (hasSize) sb.Append(hasLo ? lo + shape.Sizes[i] - 1 : shape.Sizes[i]);
            }
        sb.Append(']');
    }

    static string CcWord(int cc, bool cs) => (cc, cs) switch
    {
        (1, true) => "unmanaged[Cdecl] ", (2, true) => "unmanaged[Stdcall] ", (3, true) => "unmanaged[Thiscall] ",
        (4, true) => "unmanaged[Fastcall] ", (5, _) => "vararg ", (9, _) => "unmanaged ", (0xB, true) => "unmanaged vararg ",
        (1, false) => "unmanaged cdecl ", (2, false) => "unmanaged stdcall ", (3, false) => "unmanaged thiscall ",
        (4, false) => "unmanaged fastcall ", (0xB, false) => "native vararg ", _ => "",
    };

    public void Type(StringBuilder sb, T t)
    {
        switch (t)
        {
            case Prim p: sb.Append(Prim(p.C, cs)); break;
            case Tok k: Token(sb, k.H, k.Raw == 0x12 ? "class" : k.Raw == 0x11 ? "valuetype" : null); break;
            case Ptr p: Type(sb, p.E); sb.Append('*'); break;
            case ByRef r: if (cs) { sb.Append("ref "); Type(sb, r.E); } else { Type(sb, r.E); sb.Append('&'); } break;
            case SzArr a: Type(sb, a.E); sb.Append("[]"); break;
            case Arr a: Type(sb, a.E); Shape(sb, a.S); break;
            case Inst g:
                Type(sb, g.G); sb.Append('<');
                for (int i = 0; i < g.A.Length; i++) { if (i > 0) sb.Append(", "); Type(sb, g.A[i]); }
                sb.Append('>'); break;
            case GP g:
                {
                    string? n = GpName(g.M, g.I);
                    string bang = g.M ? "!!" : "!";
                    if (!string.IsNullOrEmpty(n)) { if (!cs) sb.Append(bang); sb.Append(n); }
                    else sb.Append(bang).Append(g.I);
                    break;
                }
            case Mod m:
                if (cs && m.Req && m.U is ByRef br && IsInAttr(m.M)) { sb.Append("in "); Type(sb, br.E); break; }
                Type(sb, m.U);
                sb.Append(m.Req ? " modreq(" : " modopt(");
                Token(sb, ((Tok)m.M).H, null);
                sb.Append(')'); break;
            case Pin p: Type(sb, p.E); sb.Append(" pinned"); break;
            case Fn f:
                if (cs)
                {
                    var h = f.S.Header;
                    sb.Append("delegate*");
                    if (h.IsInstance) sb.Append(" instance");
                    if (h.HasExplicitThis) sb.Append(" explicit");
                    string w = CcWord((int)h.CallingConvention, true);
                    if (w.Length > 0) sb.Append(' ').Append(w, 0, w.Length - 1);
                    sb.Append('<');
                    var ps = f.S.ParameterTypes;
                    for (int i = 0; i < ps.Length; i++)
                    {
                        if (i == f.S.RequiredParameterCount && f.S.RequiredParameterCount < ps.Length) sb.Append("..., ");
                        Type(sb, ps[i]); sb.Append(", ");
                    }
                    Type(sb, f.S.ReturnType); sb.Append('>');
                }
                else { sb.Append("method "); Method(sb, f.S, "", "*", null, null, null); }
                break;
            default: throw new Exception(t.ToString());
        }
    }

    public void Method(StringBuilder sb, MethodSignature<T> m, string owner, string name, string[]? gnames, string?[]? pnames, int[]? pflags)
    {
        var h = m.Header;
        int cc = (int)h.CallingConvention;
        if (cs) { if (h.HasExplicitThis) sb.Append("explicit "); if (!h.IsInstance) sb.Append("static "); }
        else { if (h.IsInstance) sb.Append("instance "); if (h.HasExplicitThis) sb.Append("explicit "); }
        if (h.Kind != SignatureKind.Property) sb.Append(CcWord(cc, cs));
        Type(sb, m.ReturnType);
        sb.Append(' ');
        if (owner.Length > 0) sb.Append(owner).Append(cs ? "." : "::");
        sb.Append(name);
        if (h.IsGeneric)
        {
            sb.Append('<');
            if (gnames != null) sb.Append(string.Join(", ", gnames));
            else if (cs) sb.Append(string.Join(", ", Enumerable.Range(0, m.GenericParameterCount).Select(i => "!!" + i)));
            else sb.Append('[').Append(m.GenericParameterCount).Append(']');
            sb.Append('>');
        }
        sb.Append('(');
        var ps = m.ParameterTypes;
        for (int i = 0; i < ps.Length; i++)
        {
            if (i > 0) sb.Append(", ");
            if (i == m.RequiredParameterCount && m.RequiredParameterCount < ps.Length) sb.Append("..., ");
            int fl = pflags != null ? pflags[i] : 0;
            if (cs)
            {
                if (pflags != null && ps[i] is ByRef br) { sb.Append((fl & 2) != 0 ? "out " : (fl & 1) != 0 ? "in " : "ref "); Type(sb, br.E); }
                else Type(sb, ps[i]);
            }
            else
            {
                if ((fl & 1) != 0) sb.Append("[in]");
                if ((fl & 2) != 0) sb.Append("[out]");
                if ((fl & 3) != 0) sb.Append(' ');
                Type(sb, ps[i]);
            }
            if (pnames != null && !string.IsNullOrEmpty(pnames[i])) sb.Append(' ').Append(pnames[i]);
        }
        sb.Append(')');
    }

    public string Owner(TypeDefinitionHandle td)
    {
        var sb = new StringBuilder();
        Name(sb, td);
        var gps = md.GetTypeDefinition(td).GetGenericParameters();
        if (cs && gps.Count > 0)
            sb.Append('<').Append(string.Join(", ", gps.Select(g => md.GetString(md.GetGenericParameter(g).Name)))).Append('>');
        return sb.ToString();
    }

    public string MethodLine(MethodDefinitionHandle mh, Dictionary<TypeDefinitionHandle, string> owners)
    {
        var m = md.GetMethodDefinition(mh);
        var td = m.GetDeclaringType();
        if (!owners.TryGetValue(td, out var owner)) owners[td] = owner = td.IsNil ? "" : Owner(td);
        ctxType = td; ctxMethod = mh;
        var sig = m.DecodeSignature(new Prov(), null);
        string[]? gnames = null;
        if (sig.Header.IsGeneric)
        {
            var g = new string?[sig.GenericParameterCount];
            foreach (var gh in m.GetGenericParameters()) { var p = md.GetGenericParameter(gh); if (p.Index < g.Length && g[p.Index] == null) g[p.Index] = md.GetString(p.Name); }
            if (g.All(x => x != null)) gnames = g!;
        }
        var pn = new string?[sig.ParameterTypes.Length];
        var pf = new int[sig.ParameterTypes.Length];
        foreach (var ph in m.GetParameters())
        {
            var p = md.GetParameter(ph);
            int s = p.SequenceNumber;
            if (s >= 1 && s <= pn.Length && pn[s - 1] == null) { pn[s - 1] = md.GetString(p.Name); pf[s - 1] = (int)p.Attributes & 0xFFFF; }
        }
        var sb = new StringBuilder();
        Method(sb, sig, owner, md.GetString(m.Name), gnames, pn, pf);
        return sb.ToString();
    }

    public string RefLine(MemberReferenceHandle rh, Dictionary<TypeDefinitionHandle, string> owners)
    {
        var r = md.GetMemberReference(rh);
        ctxType = default; ctxMethod = default;
        var sb = new StringBuilder();
        string owner;
        var p = r.Parent;
        if (p.Kind == HandleKind.ModuleReference) owner = md.GetString(md.GetModuleReference((ModuleReferenceHandle)p).Name);
        else
        {
            if (p.Kind == HandleKind.MethodDefinition) p = md.GetMethodDefinition((MethodDefinitionHandle)p).GetDeclaringType();
            var ob = new StringBuilder(); Token(ob, p, null); owner = ob.ToString();
        }
        string name = md.GetString(r.Name);
        if (r.GetKind() == MemberReferenceKind.Field)
        {
            Type(sb, r.DecodeFieldSignature(new Prov(), null));
            sb.Append(' ');
            if (owner.Length > 0) sb.Append(owner).Append(cs ? "." : "::");
            sb.Append(name);
        }
        else Method(sb, r.DecodeMethodSignature(new Prov(), null), owner, name, null, null, null);
        return sb.ToString();
    }
}

static class Program
{
    static int Main(string[] a)
    {
        if (a.Length >= 2 && a[0] == "sigs") return Sigs(a);
        if (a.Length >= 2 && a[0] == "facts") return Facts(a);
        Console.Error.WriteLine("usage: srmsigs sigs ASSEMBLY [--format csharp|ildasm] [--members] [--tokens] [--time]\n" +
                                "       srmsigs facts ASSEMBLY...");
        return 2;
    }

    static void Run(string path, bool cs, bool members, bool tokens, Stream to)
    {
        using var pe = new PEReader(File.OpenRead(path));
        var md = pe.GetMetadataReader();
        var r = new R(md, cs);
        var owners = new Dictionary<TypeDefinitionHandle, string>();
        var outp = new StreamWriter(to, new UTF8Encoding(false), 1 << 16);
        outp.NewLine = "\n";
        foreach (var mh in md.MethodDefinitions)
        {
            if (tokens) outp.Write($"0x{MetadataTokens.GetToken(mh):X8} ");
            outp.WriteLine(r.MethodLine(mh, owners));
        }
        if (members)
            foreach (var rh in md.MemberReferences)
            {
                if (tokens) outp.Write($"0x{MetadataTokens.GetToken(rh):X8} ");
                outp.WriteLine(r.RefLine(rh, owners));
            }
        outp.Flush();
    }

    static int Sigs(string[] a)
    {
        bool cs = true, members = false, tokens = false, time = false;
        string path = a[1];
        for (int i = 2; i < a.Length; i++)
        {
            if (a[i] == "--format" && i + 1 < a.Length) cs = a[++i] == "csharp";
            else if (a[i] == "--members") members = true;
            else if (a[i] == "--tokens") tokens = true;
            else if (a[i] == "--time") time = true;
            else { Console.Error.WriteLine($"srmsigs: unknown option {a[i]}"); return 2; }
        }
        if (!time)
        {
            using var so = Console.OpenStandardOutput();
            Run(path, cs, members, tokens, so);
            return 0;
        }
        // --time: the same work 8 times into a null stream, each run timed
        for (int rep = 0; rep < 8; rep++)
        {
            var sw = Stopwatch.StartNew();
            Run(path, cs, members, tokens, Stream.Null);
            Console.Error.WriteLine($"srmsigs: {sw.Elapsed.TotalMilliseconds:F1} ms");
        }
        return 0;
    }

    // One C initializer per assembly: layout facts as SRM sees them.
    static int Facts(string[] a)
    {
        for (int i = 1; i < a.Length; i++)
        {
            using var pe = new PEReader(File.OpenRead(a[i]));
            var md = pe.GetMetadataReader();
            var rows = new List<string>();
            var sizes = new List<string>();
            var offs = new List<string>();
            for (int t = 0; t < 0x2D; t++)
            {
                int n = md.GetTableRowCount((TableIndex)t);
                rows.Add(n.ToString());
                sizes.Add(n > 0 ? md.GetTableRowSize((TableIndex)t).ToString() : "0");
                offs.Add(n > 0 ? md.GetTableMetadataOffset((TableIndex)t).ToString() : "0");
            }
            var mod = md.GetModuleDefinition();
            var asm = md.GetAssemblyDefinition();
            int methods = md.MethodDefinitions.Count, generic = 0;
            foreach (var h in md.MethodDefinitions)
                if (md.GetMethodDefinition(h).GetGenericParameters().Count > 0) generic++;
            int nested = md.TypeDefinitions.Count(h => md.GetTypeDefinition(h).IsNested);
            Console.WriteLine("    {");
            Console.WriteLine($"        \"{Path.GetFileName(a[i])}\", \"{md.GetGuid(mod.Mvid)}\",");
            Console.WriteLine($"        \"{md.GetString(mod.Name)}\", \"{md.GetString(asm.Name)}\", {{ {asm.Version.Major}, {asm.Version.Minor}, {asm.Version.Build}, {asm.Version.Revision} }},");
            Console.WriteLine($"        {(pe.PEHeaders.PEHeader!.Magic == PEMagic.PE32Plus ? 1 : 0)}, {pe.PEHeaders.MetadataStartOffset}, {pe.PEHeaders.MetadataSize}, \"{md.MetadataVersion}\",");
            Console.WriteLine($"        {md.GetHeapSize(HeapIndex.String)}, {md.GetHeapSize(HeapIndex.Blob)}, {md.GetHeapSize(HeapIndex.Guid)}, {md.GetHeapSize(HeapIndex.UserString)},");
            Console.WriteLine($"        {nested}, {generic},");
            Console.WriteLine($"        {{ {string.Join(", ", rows)} }},");
            Console.WriteLine($"        {{ {string.Join(", ", sizes)} }},");
            Console.WriteLine($"        {{ {string.Join(", ", offs)} }},");
            Console.WriteLine("    },");
        }
        return 0;
    }
}

// Structural features of a decoded blob, used only to pick a varied subset of blobs (--max)
// and to report rare shapes (--stats). They do not influence any expected text.
using System.Collections.Generic;
using System.Linq;
using System.Reflection.Metadata;

namespace ClrSigOracle;

static class Features
{
    public static int[] Of(Decoded d, Dictionary<string, int> interner)
    {
        var set = new HashSet<string> { "kind:" + Sig.KindName(d.Kind) };
        switch (d.Kind)
        {
            case BlobKind.Method:
            case BlobKind.Property:
                Method(d.Method!.Value, Sig.KindName(d.Kind), set);
                break;
            case BlobKind.Field:
            case BlobKind.TypeSpec:
                Type(d.Type!, Sig.KindName(d.Kind), 1, set);
                break;
            default:
                set.Add($"{Sig.KindName(d.Kind)}.count:{Bucket(d.List.Length)}");
                foreach (var t in d.List) Type(t, Sig.KindName(d.Kind), 1, set);
                break;
        }
        return set.Select(f => interner.TryGetValue(f, out int id) ? id : interner[f] = interner.Count)
                  .Order().ToArray();
    }

    static string Bucket(int n) => n < 4 ? n.ToString() : n < 8 ? "4+" : "8+";

    static void Method(MethodSignature<SigType> m, string ctx, HashSet<string> set)
    {
        set.Add($"{ctx}.cc:{m.Header.RawValue:X2}");
        set.Add($"{ctx}.params:{Bucket(m.ParameterTypes.Length)}");
        if (m.Header.IsGeneric) set.Add($"{ctx}.generic:{Bucket(m.GenericParameterCount)}");
        if (m.RequiredParameterCount < m.ParameterTypes.Length) set.Add($"{ctx}.sentinel");
        Type(m.ReturnType, ctx + ".ret", 1, set);
        foreach (var p in m.ParameterTypes) Type(p, ctx + ".param", 1, set);
    }

    static string Label(SigType t) => t switch
    {
        PrimType { Code: PrimitiveTypeCode.Void } => "void",
        PrimType { Code: PrimitiveTypeCode.TypedReference } => "typedref",
        PrimType { Code: PrimitiveTypeCode.String or PrimitiveTypeCode.Object } => "ref-prim",
        PrimType => "prim",
        TokenType k => (k.RawKind == 0x11 ? "valuetype" : "class") + ((k.Token >> 24) == 0x1B ? "-spec" : ""),
        PointerType => "ptr",
        ByRefType => "byref",
        SzArrayType => "szarray",
        ArrayType => "array",
        GenericInstType => "ginst",
        GenericParamType g => g.IsMethod ? "mvar" : "var",
        ModifiedType m => m.IsRequired ? "modreq" : "modopt",
        PinnedType => "pinned",
        FnPtrType => "fnptr",
        _ => "?",
    };

    static void Type(SigType t, string parent, int depth, HashSet<string> set)
    {
        string label = Label(t);
        set.Add($"{parent}>{label}");
        set.Add("depth:" + (depth < 6 ? depth.ToString() : "6+"));
        switch (t)
        {
            case PrimType p:
                set.Add("prim:" + p.Code);
                break;
            case TokenType k:
                set.Add($"token:{k.Token >> 24:X2}");
                break;
            case PointerType or ByRefType or SzArrayType or PinnedType:
                var elem = t switch { PointerType p => p.Elem, ByRefType r => r.Elem, SzArrayType s => s.Elem, _ => ((PinnedType)t).Elem };
                Type(elem, label, depth + 1, set);
                break;
            case ArrayType a:
                var s2 = a.Shape;
                set.Add($"array.shape:r{(s2.Rank < 4 ? s2.Rank : "4+")}s{s2.Sizes.Length}l{s2.LowerBounds.Length}");
                if (s2.LowerBounds.Any(x => x != 0)) set.Add("array.lobound-nonzero");
                if (s2.LowerBounds.Any(x => x < 0)) set.Add("array.lobound-negative");
                Type(a.Elem, label, depth + 1, set);
                break;
            case GenericInstType g:
                set.Add($"ginst.args:{Bucket(g.Args.Length)}");
                Type(g.Generic, "ginst.generic", depth + 1, set);
                foreach (var x in g.Args) Type(x, label, depth + 1, set);
                break;
            case ModifiedType m:
                set.Add($"{label}.token:{((TokenType)m.Modifier).Token >> 24:X2}");
                Type(m.Unmodified, label, depth + 1, set);
                break;
            case FnPtrType f:
                Method(f.Sig, "fnptr", set);
                break;
        }
    }

    /// <summary>Features worth reporting with --stats (the rare shapes of the brief).</summary>
    public static bool IsRare(string f) =>
        f.Contains("fnptr") || f.Contains("array.") || f.Contains(">array") || f.Contains("mod") ||
        f.Contains("sentinel") || f.Contains("typedref") || f.Contains("pinned") || f.Contains("-spec") ||
        f.StartsWith("ginst.generic>valuetype") || f.Contains("ginst>ginst") || f is "depth:5" or "depth:6+" ||
        (f.Contains(".cc:") && !f.EndsWith(":00") && !f.EndsWith(":20") && !f.EndsWith(":10") &&
         !f.EndsWith(":30") && !f.EndsWith(":06") && !f.EndsWith(":07") && !f.EndsWith(":08") && !f.EndsWith(":28") &&
         !f.EndsWith(":0A"));
}

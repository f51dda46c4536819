// The oracle's model: System.Reflection.Metadata's SignatureDecoder drives a provider that
// builds a small type tree (SigType); Render turns a decoded blob into the text forms of
// docs/libclrsig.md ("Text forms"), in the no-resolver mode: every token prints as a
// placeholder <0x01000012>, generic parameters as !n / !!n.
using System;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Text;

namespace ClrSigOracle;

public abstract record SigType;
public sealed record PrimType(PrimitiveTypeCode Code) : SigType;
/// <summary>A TypeDef/TypeRef/TypeSpec token; RawKind is 0x12 CLASS, 0x11 VALUETYPE, 0 for a modifier.</summary>
public sealed record TokenType(int Token, byte RawKind) : SigType;
public sealed record PointerType(SigType Elem) : SigType;
public sealed record ByRefType(SigType Elem) : SigType;
public sealed record SzArrayType(SigType Elem) : SigType;
public sealed record ArrayType(SigType Elem, ArrayShape Shape) : SigType;
public sealed record GenericInstType(SigType Generic, ImmutableArray<SigType> Args) : SigType;
public sealed record GenericParamType(bool IsMethod, int Index) : SigType;
/// <summary>CMOD_REQD / CMOD_OPT: the modifier wraps the type that follows it in the blob.</summary>
public sealed record ModifiedType(SigType Modifier, SigType Unmodified, bool IsRequired) : SigType;
public sealed record PinnedType(SigType Elem) : SigType;
public sealed record FnPtrType(MethodSignature<SigType> Sig) : SigType;

public enum BlobKind { Method, Field, Property, Locals, TypeSpec, MethodSpec }

public enum Style { CSharp, ILDasm }

/// <summary>One decoded blob: Method for METHOD/PROPERTY, Type for FIELD/TYPESPEC, List for LOCALS/METHODSPEC.</summary>
public sealed record Decoded(BlobKind Kind, MethodSignature<SigType>? Method, SigType? Type, ImmutableArray<SigType> List);

/// <summary>Builds SigType nodes; never looks at a MetadataReader (it is null), never expands TypeSpecs.</summary>
public sealed class TreeProvider : ISignatureTypeProvider<SigType, object?>
{
    public static readonly TreeProvider Instance = new();
    static readonly Dictionary<PrimitiveTypeCode, PrimType> prims = new();

    static TreeProvider()
    {
        foreach (PrimitiveTypeCode c in Enum.GetValues<PrimitiveTypeCode>())
            prims[c] = new PrimType(c);
    }

    public SigType GetPrimitiveType(PrimitiveTypeCode typeCode) => prims[typeCode];
    public SigType GetTypeFromDefinition(MetadataReader reader, TypeDefinitionHandle handle, byte rawTypeKind) =>
        new TokenType(MetadataTokens.GetToken(handle), rawTypeKind);
    public SigType GetTypeFromReference(MetadataReader reader, TypeReferenceHandle handle, byte rawTypeKind) =>
        new TokenType(MetadataTokens.GetToken(handle), rawTypeKind);
    // No resolver: a TypeSpec token is not expanded, it stays a placeholder.
    public SigType GetTypeFromSpecification(MetadataReader reader, object? genericContext, TypeSpecificationHandle handle, byte rawTypeKind) =>
        new TokenType(MetadataTokens.GetToken(handle), rawTypeKind);
    public SigType GetPointerType(SigType elementType) => new PointerType(elementType);
    public SigType GetByReferenceType(SigType elementType) => new ByRefType(elementType);
    public SigType GetSZArrayType(SigType elementType) => new SzArrayType(elementType);
    public SigType GetArrayType(SigType elementType, ArrayShape shape) => new ArrayType(elementType, shape);
    public SigType GetGenericInstantiation(SigType genericType, ImmutableArray<SigType> typeArguments) =>
        new GenericInstType(genericType, typeArguments);
    public SigType GetGenericTypeParameter(object? genericContext, int index) => new GenericParamType(false, index);
    public SigType GetGenericMethodParameter(object? genericContext, int index) => new GenericParamType(true, index);
    public SigType GetModifiedType(SigType modifier, SigType unmodifiedType, bool isRequired) =>
        new ModifiedType(modifier, unmodifiedType, isRequired);
    public SigType GetPinnedType(SigType elementType) => new PinnedType(elementType);
    public SigType GetFunctionPointerType(MethodSignature<SigType> signature) => new FnPtrType(signature);
}

public static class Sig
{
    public static string KindName(BlobKind k) => k switch
    {
        BlobKind.Method => "method", BlobKind.Field => "field", BlobKind.Property => "property",
        BlobKind.Locals => "locals", BlobKind.TypeSpec => "typespec", _ => "methodspec",
    };

    public static BlobKind ParseKind(string s) => s switch
    {
        "method" => BlobKind.Method, "field" => BlobKind.Field, "property" => BlobKind.Property,
        "locals" => BlobKind.Locals, "typespec" => BlobKind.TypeSpec, "methodspec" => BlobKind.MethodSpec,
        _ => throw new ArgumentException($"unknown kind '{s}'"),
    };

    /// <summary>Decodes blob[0..len) with SRM. Throws BadImageFormatException on what SRM rejects,
    /// and on trailing bytes (SRM itself ignores them; libclrsig reports E_TRAILING).</summary>
    public static unsafe Decoded Decode(BlobKind kind, byte* blob, int len)
    {
        var reader = new BlobReader(blob, len);
        var dec = new SignatureDecoder<SigType, object?>(TreeProvider.Instance, null!, null);
        Decoded d;
        switch (kind)
        {
            case BlobKind.Method:
            case BlobKind.Property:
                var m = dec.DecodeMethodSignature(ref reader);
                if ((m.Header.Kind == SignatureKind.Property) != (kind == BlobKind.Property))
                    throw new BadImageFormatException($"header 0x{m.Header.RawValue:X2} is not a {KindName(kind)} signature");
                d = new Decoded(kind, m, null, default);
                break;
            case BlobKind.Field:
                d = new Decoded(kind, null, dec.DecodeFieldSignature(ref reader), default);
                break;
            case BlobKind.TypeSpec:
                d = new Decoded(kind, null, dec.DecodeType(ref reader), default);
                break;
            case BlobKind.Locals:
                d = new Decoded(kind, null, null, dec.DecodeLocalSignature(ref reader));
                break;
            default:
                d = new Decoded(kind, null, null, dec.DecodeMethodSpecificationSignature(ref reader));
                break;
        }
        if (reader.RemainingBytes != 0)
            throw new BadImageFormatException($"{reader.RemainingBytes} trailing byte(s)");
        return d;
    }

    public static unsafe Decoded Decode(BlobKind kind, byte[] blob)
    {
        fixed (byte* p = blob)
            return Decode(kind, p, blob.Length);
    }

    // ------------------------------------------------------------------ rendering

    public static string Render(Decoded d, Style s)
    {
        var sb = new StringBuilder();
        Render(sb, d, s);
        return sb.ToString();
    }

    public static void Render(StringBuilder sb, Decoded d, Style s)
    {
        switch (d.Kind)
        {
            case BlobKind.Method:
            case BlobKind.Property:
                Method(sb, d.Method!.Value, s, "");
                break;
            case BlobKind.Field:
            case BlobKind.TypeSpec:
                Type(sb, d.Type!, s);
                break;
            case BlobKind.Locals:
                sb.Append('(');
                List(sb, d.List, s);
                sb.Append(')');
                break;
            default:
                sb.Append('<');
                List(sb, d.List, s);
                sb.Append('>');
                break;
        }
    }

    static void List(StringBuilder sb, ImmutableArray<SigType> types, Style s)
    {
        for (int i = 0; i < types.Length; i++)
        {
            if (i > 0) sb.Append(", ");
            Type(sb, types[i], s);
        }
    }

    /// <summary>Parameters, with the pseudo-parameter "..." before the first one after a SENTINEL.</summary>
    static void Params(StringBuilder sb, MethodSignature<SigType> m, Style s)
    {
        var ps = m.ParameterTypes;
        for (int i = 0; i < ps.Length; i++)
        {
            if (i > 0) sb.Append(", ");
            if (i == m.RequiredParameterCount && m.RequiredParameterCount < ps.Length)
                sb.Append("..., ");
            Type(sb, ps[i], s);
        }
    }

    static int CallConv(MethodSignature<SigType> m) => m.Header.RawValue & 0x0F;

    /// <summary>The calling-convention word of the method form, with its trailing space (property: none).</summary>
    static string CallConvWord(int cc, Style s) => (cc, s) switch
    {
        (0x1, Style.CSharp) => "unmanaged[Cdecl] ",
        (0x2, Style.CSharp) => "unmanaged[Stdcall] ",
        (0x3, Style.CSharp) => "unmanaged[Thiscall] ",
        (0x4, Style.CSharp) => "unmanaged[Fastcall] ",
        (0x5, _) => "vararg ",
        (0x9, _) => "unmanaged ",
        (0xB, Style.CSharp) => "unmanaged vararg ",
        (0x1, Style.ILDasm) => "unmanaged cdecl ",
        (0x2, Style.ILDasm) => "unmanaged stdcall ",
        (0x3, Style.ILDasm) => "unmanaged thiscall ",
        (0x4, Style.ILDasm) => "unmanaged fastcall ",
        (0xB, Style.ILDasm) => "native vararg ",
        _ => "", // DEFAULT, PROPERTY
    };

    /// <summary>The method form without a name (name "" for blobs, "*" for ILDasm function pointers).</summary>
    static void Method(StringBuilder sb, MethodSignature<SigType> m, Style s, string name)
    {
        var h = m.Header;
        if (s == Style.CSharp)
        {
            if (!h.IsInstance) sb.Append("static ");
            if (h.HasExplicitThis) sb.Append("explicit ");
        }
        else
        {
            if (h.IsInstance) sb.Append("instance ");
            if (h.HasExplicitThis) sb.Append("explicit ");
        }
        sb.Append(CallConvWord(CallConv(m), s));
        Type(sb, m.ReturnType, s);
        sb.Append(' ').Append(name);
        if (h.IsGeneric)
        {
            if (s == Style.CSharp)
            {
                sb.Append('<');
                for (int i = 0; i < m.GenericParameterCount; i++)
                    sb.Append(i > 0 ? ", !!" : "!!").Append(i);
                sb.Append('>');
            }
            else
            {
                sb.Append("<[").Append(m.GenericParameterCount).Append("]>");
            }
        }
        sb.Append('(');
        Params(sb, m, s);
        sb.Append(')');
    }

    static void FnPtr(StringBuilder sb, MethodSignature<SigType> m, Style s)
    {
        if (s == Style.ILDasm)
        {
            sb.Append("method ");
            Method(sb, m, s, "*");
            return;
        }
        sb.Append("delegate*");
        if (m.Header.IsInstance) sb.Append(" instance");
        if (m.Header.HasExplicitThis) sb.Append(" explicit");
        string cc = CallConvWord(CallConv(m), s);
        if (cc.Length > 0) sb.Append(' ').Append(cc, 0, cc.Length - 1);
        sb.Append('<');
        Params(sb, m, s);
        if (m.ParameterTypes.Length > 0) sb.Append(", ");
        Type(sb, m.ReturnType, s);
        sb.Append('>');
    }

    static string Prim(PrimitiveTypeCode c, Style s) => c switch
    {
        PrimitiveTypeCode.Void => "void",
        PrimitiveTypeCode.Boolean => "bool",
        PrimitiveTypeCode.Char => "char",
        PrimitiveTypeCode.SByte => s == Style.CSharp ? "sbyte" : "int8",
        PrimitiveTypeCode.Byte => s == Style.CSharp ? "byte" : "uint8",
        PrimitiveTypeCode.Int16 => s == Style.CSharp ? "short" : "int16",
        PrimitiveTypeCode.UInt16 => s == Style.CSharp ? "ushort" : "uint16",
        PrimitiveTypeCode.Int32 => s == Style.CSharp ? "int" : "int32",
        PrimitiveTypeCode.UInt32 => s == Style.CSharp ? "uint" : "uint32",
        PrimitiveTypeCode.Int64 => s == Style.CSharp ? "long" : "int64",
        PrimitiveTypeCode.UInt64 => s == Style.CSharp ? "ulong" : "uint64",
        PrimitiveTypeCode.Single => s == Style.CSharp ? "float" : "float32",
        PrimitiveTypeCode.Double => s == Style.CSharp ? "double" : "float64",
        PrimitiveTypeCode.IntPtr => s == Style.CSharp ? "nint" : "native int",
        PrimitiveTypeCode.UIntPtr => s == Style.CSharp ? "nuint" : "native uint",
        PrimitiveTypeCode.String => "string",
        PrimitiveTypeCode.Object => "object",
        PrimitiveTypeCode.TypedReference => s == Style.CSharp ? "TypedReference" : "typedref",
        _ => throw new ArgumentOutOfRangeException(nameof(c)),
    };

    static void Placeholder(StringBuilder sb, int token) =>
        sb.Append("<0x").Append(((uint)token).ToString("X8")).Append('>');

    public static void Type(StringBuilder sb, SigType t, Style s)
    {
        switch (t)
        {
            case PrimType p:
                sb.Append(Prim(p.Code, s));
                break;
            case TokenType k:
                // ILDasm keeps class/valuetype before TypeDef/TypeRef placeholders, not TypeSpec ones.
                if (s == Style.ILDasm && (k.Token >> 24) != 0x1B)
                {
                    if (k.RawKind == 0x12) sb.Append("class ");
                    else if (k.RawKind == 0x11) sb.Append("valuetype ");
                }
                Placeholder(sb, k.Token);
                break;
            case PointerType p:
                Type(sb, p.Elem, s);
                sb.Append('*');
                break;
            case ByRefType r:
                if (s == Style.CSharp) { sb.Append("ref "); Type(sb, r.Elem, s); }
                else { Type(sb, r.Elem, s); sb.Append('&'); }
                break;
            case SzArrayType a:
                Type(sb, a.Elem, s);
                sb.Append("[]");
                break;
            case ArrayType a:
                Type(sb, a.Elem, s);
                Shape(sb, a.Shape, s);
                break;
            case GenericInstType g:
                Type(sb, g.Generic, s);
                sb.Append('<');
                List(sb, g.Args, s);
                sb.Append('>');
                break;
            case GenericParamType g:
                sb.Append(g.IsMethod ? "!!" : "!").Append(g.Index);
                break;
            case ModifiedType m:
                Type(sb, m.Unmodified, s);
                sb.Append(m.IsRequired ? " modreq(" : " modopt(");
                // A modifier's name never carries a class/valuetype keyword.
                Placeholder(sb, ((TokenType)m.Modifier).Token);
                sb.Append(')');
                break;
            case PinnedType p:
                Type(sb, p.Elem, s);
                sb.Append(" pinned");
                break;
            case FnPtrType f:
                FnPtr(sb, f.Sig, s);
                break;
            default:
                throw new ArgumentException(t.GetType().Name);
        }
    }

    // docs/libclrsig.md: C# style leaves blank a dimension with no size whose lower bound is
    // absent or 0 (C#'s own int[,] is rank 2 with lower bounds 0, 0); ILDasm prints every bound.
    static bool Blank(ArrayShape shape, int i, Style s) =>
        i >= shape.Sizes.Length && (i >= shape.LowerBounds.Length || (s == Style.CSharp && shape.LowerBounds[i] == 0));

    static void Shape(StringBuilder sb, ArrayShape shape, Style s)
    {
        sb.Append('[');
        if (shape.Rank == 1 && Blank(shape, 0, s))
        {
            sb.Append(s == Style.CSharp ? "*" : "...");
        }
        else
        {
            for (int i = 0; i < shape.Rank; i++)
            {
                if (i > 0) sb.Append(',');
                if (Blank(shape, i, s)) continue;
                bool hasLo = i < shape.LowerBounds.Length, hasSize = i < shape.Sizes.Length;
                long lo = hasLo ? shape.LowerBounds[i] : 0;
                if (hasLo) sb.Append(lo).Append("...");
                if (hasSize) sb.Append(hasLo ? lo + shape.Sizes[i] - 1 : shape.Sizes[i]);
            }
        }
        sb.Append(']');
    }
}

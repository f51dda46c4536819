// srmpdb — the System.Reflection.Metadata side of tests/meta/oracle_pdb.sh:
// what an assembly's Portable PDB says, as text that tests/pdb_dump
// (libclrmeta) must print byte for byte.
//
//   srmpdb ASSEMBLY
//
// Output (LF line ends, numbers in decimal unless said, nothing else on stdout):
//   pdb embedded | pdb file NAME           where the PDB was found
//   id HEX40                               the PDB id: CodeView GUID + stamp
//   document RID NAME lang=GUID hash=GUID hashlen=N      each Document row
//   method 0x06xxxxxx                      each MethodDebugInformation row with
//     sp IL SL:SC-EL:EC doc=RID            sequence points, local scopes or a
//     sp IL hidden doc=RID                 kickoff method, in table order
//     scope START LENGTH import=RID
//       local INDEX NAME attrs=N
//       const NAME
//     kickoff 0x06xxxxxx
//     hoisted START LENGTH                 state machine hoisted local scopes
//   sourcelink N                           the module's Source Link blob length
//   methods M sequencepoints S locals L
// Errors go to stderr with exit 1: "no pdb", "pdb id mismatch", or the reason.
using System;
using System.Collections.Immutable;
using System.Globalization;
using System.IO;
using System.Reflection.Metadata;
using System.Reflection.Metadata.Ecma335;
using System.Reflection.PortableExecutable;
using System.Text;

namespace SrmPdb;

sealed class Fail : Exception { public Fail(string m) : base(m) { } }

static class Program
{
    static readonly Guid SourceLink = new("cc110556-a091-4d38-9fec-25ab9a351a6a");
    static readonly Guid HoistedScopes = new("6da9a61e-f8c7-4874-be62-68bc5630df71");

    static int Main(string[] a)
    {
        if (a.Length != 1)
        {
            Console.Error.WriteLine("usage: srmpdb ASSEMBLY");
            return 2;
        }
        CultureInfo.CurrentCulture = CultureInfo.InvariantCulture;
        var sb = new StringBuilder();
        try
        {
            Dump(a[0], sb);
        }
        catch (Fail f)
        {
            Console.Error.WriteLine(f.Message);
            return 1;
        }
        catch (Exception e) when (e is IOException or BadImageFormatException or UnauthorizedAccessException or InvalidOperationException)
        {
            Console.Error.WriteLine($"srmpdb: {a[0]}: {e.Message}");
            return 1;
        }
        // All or nothing: stdout is written only once the whole dump succeeded.
        using var so = Console.OpenStandardOutput();
        var bytes = new UTF8Encoding(false).GetBytes(sb.ToString());
        so.Write(bytes, 0, bytes.Length);
        return 0;
    }

    // The last component of a path written on any system: a CodeView path
    // from a Windows build uses '\', which Path.GetFileName on Linux keeps.
    static string FileName(string p) => p.Substring(p.LastIndexOfAny(new[] { '/', '\\' }) + 1);

    static string Hex(ImmutableArray<byte> b)
    {
        var sb = new StringBuilder(b.Length * 2);
        foreach (var x in b) sb.Append(x.ToString("x2"));
        return sb.ToString();
    }

    static string G(MetadataReader r, GuidHandle h) =>
        (h.IsNil ? Guid.Empty : r.GetGuid(h)).ToString("D");

    static int Rid(EntityHandle h) => h.IsNil ? 0 : MetadataTokens.GetRowNumber(h);

    static void Dump(string path, StringBuilder o)
    {
        using var pe = new PEReader(File.OpenRead(path));
        var dir = pe.ReadDebugDirectory();
        // The first portable CodeView entry carries the id the PDB must have.
        DebugDirectoryEntry? cv = null, embedded = null;
        foreach (var e in dir)
        {
            if (e.Type == DebugDirectoryEntryType.EmbeddedPortablePdb && embedded == null) embedded = e;
            if (e.Type == DebugDirectoryEntryType.CodeView && e.MinorVersion == 0x504D && cv == null) cv = e;
        }

        MetadataReaderProvider provider;
        string where;
        if (embedded != null)
        {
            provider = pe.ReadEmbeddedPortablePdbDebugDirectoryData(embedded.Value);
            where = "pdb embedded";
        }
        else if (cv != null)
        {
            string p = pe.ReadCodeViewDebugDirectoryData(cv.Value).Path;
            string name = FileName(p);
            string beside = Path.Combine(Path.GetDirectoryName(Path.GetFullPath(path)) ?? ".", name);
            string open = name.Length > 0 && File.Exists(beside) ? beside : p;
            if (!File.Exists(open)) throw new Fail("no pdb");
            provider = MetadataReaderProvider.FromPortablePdbStream(File.OpenRead(open));
            where = "pdb file " + FileName(open);
        }
        else throw new Fail("no pdb");

        using (provider)
        {
            var r = provider.GetMetadataReader();
            var id = r.DebugMetadataHeader?.Id ?? throw new Fail("not a portable pdb");
            // The id check applies to an embedded PDB as well, when the image has
            // a portable CodeView entry (the compilers always write one).
            if (cv != null)
            {
                var d = pe.ReadCodeViewDebugDirectoryData(cv.Value);
                var want = new byte[20];
                d.Guid.ToByteArray().CopyTo(want, 0);
                BitConverter.TryWriteBytes(want.AsSpan(16), cv.Value.Stamp);
                if (!BitConverter.IsLittleEndian) Array.Reverse(want, 16, 4);
                if (!id.AsSpan().SequenceEqual(want)) throw new Fail("pdb id mismatch");
            }
            Write(r, o, where, id);
        }
    }

    static void Write(MetadataReader r, StringBuilder o, string where, ImmutableArray<byte> id)
    {
        o.Append(where).Append('\n');
        o.Append("id ").Append(Hex(id)).Append('\n');

        foreach (var dh in r.Documents)
        {
            var d = r.GetDocument(dh);
            int hashLen = d.Hash.IsNil ? 0 : r.GetBlobReader(d.Hash).Length;
            o.Append($"document {Rid(dh)} {r.GetString(d.Name)} lang={G(r, d.Language)} hash={G(r, d.HashAlgorithm)} hashlen={hashLen}\n");
        }

        int methods = 0, sps = 0, locals = 0;
        foreach (var mh in r.MethodDebugInformation)
        {
            var mdi = r.GetMethodDebugInformation(mh);
            var def = mh.ToDefinitionHandle();
            var scopes = r.GetLocalScopes(def);
            var kickoff = mdi.GetStateMachineKickoffMethod();
            var points = mdi.GetSequencePoints();
            bool anySp = false;
            foreach (var _ in points) { anySp = true; break; }
            if (!anySp && scopes.Count == 0 && kickoff.IsNil) continue;

            methods++;
            o.Append($"method 0x06{Rid(def):x6}\n");
            foreach (var sp in points)
            {
                sps++;
                if (sp.IsHidden) o.Append($"  sp {sp.Offset} hidden doc={Rid(sp.Document)}\n");
                else o.Append($"  sp {sp.Offset} {sp.StartLine}:{sp.StartColumn}-{sp.EndLine}:{sp.EndColumn} doc={Rid(sp.Document)}\n");
            }
            foreach (var sh in scopes)
            {
                var s = r.GetLocalScope(sh);
                o.Append($"  scope {s.StartOffset} {s.Length} import={Rid(s.ImportScope)}\n");
                foreach (var vh in s.GetLocalVariables())
                {
                    var v = r.GetLocalVariable(vh);
                    locals++;
                    o.Append($"    local {v.Index} {r.GetString(v.Name)} attrs={(int)v.Attributes}\n");
                }
                foreach (var ch in s.GetLocalConstants())
                    o.Append($"    const {r.GetString(r.GetLocalConstant(ch).Name)}\n");
            }
            if (!kickoff.IsNil) o.Append($"  kickoff 0x06{Rid(kickoff):x6}\n");
            // The state machine's hoisted locals' IL ranges (the first record
            // of that kind on the method).
            foreach (var ch in r.GetCustomDebugInformation(def))
            {
                var c = r.GetCustomDebugInformation(ch);
                if (c.Kind.IsNil || r.GetGuid(c.Kind) != HoistedScopes) continue;
                var br = r.GetBlobReader(c.Value);
                while (br.RemainingBytes >= 8)
                    o.Append($"  hoisted {br.ReadUInt32()} {br.ReadUInt32()}\n");
                break;
            }
        }

        // The first Source Link record on the module, in table order.
        foreach (var ch in r.GetCustomDebugInformation(EntityHandle.ModuleDefinition))
        {
            var c = r.GetCustomDebugInformation(ch);
            if (c.Kind.IsNil || r.GetGuid(c.Kind) != SourceLink) continue;
            o.Append($"sourcelink {(c.Value.IsNil ? 0 : r.GetBlobReader(c.Value).Length)}\n");
            break;
        }

        o.Append($"methods {methods} sequencepoints {sps} locals {locals}\n");
    }
}

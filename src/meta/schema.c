/* The metadata table schema (ECMA-335 II.22) and the column layout it gives
 * for one file: index widths (II.24.2.6) depend on the heap-size flags and on
 * the row counts of the tables an index may point to. Every table 0x00-0x2C
 * is described, so offsets stay right for tables nothing reads. */
#include "meta_internal.h"

#define U16(n) { COL_U16, 0, n }
#define U32(n) { COL_U32, 0, n }
#define BYTE2(n) { COL_BYTE2, 0, n }
#define STR(n) { COL_STRING, 0, n }
#define GUID(n) { COL_GUID, 0, n }
#define BLOB(n) { COL_BLOB, 0, n }
#define TAB(t, n) { COL_TABLE, CLRMETA_T_##t, n }
#define CODED(c, n) { COL_CODED, CLRMETA_CI_##c, n }

const meta_table_def meta_tables[CLRMETA_TABLE_COUNT] = {
    [CLRMETA_T_MODULE] = { "Module", 5, { U16("Module.Generation"), STR("Module.Name"),
        GUID("Module.Mvid"), GUID("Module.EncId"), GUID("Module.EncBaseId") } },
    [CLRMETA_T_TYPEREF] = { "TypeRef", 3, { CODED(RESOLUTIONSCOPE, "TypeRef.ResolutionScope"),
        STR("TypeRef.TypeName"), STR("TypeRef.TypeNamespace") } },
    [CLRMETA_T_TYPEDEF] = { "TypeDef", 6, { U32("TypeDef.Flags"), STR("TypeDef.TypeName"),
        STR("TypeDef.TypeNamespace"), CODED(TYPEDEFORREF, "TypeDef.Extends"),
        TAB(FIELD, "TypeDef.FieldList"), TAB(METHODDEF, "TypeDef.MethodList") } },
    [CLRMETA_T_FIELDPTR] = { "FieldPtr", 1, { TAB(FIELD, "FieldPtr.Field") } },
    [CLRMETA_T_FIELD] = { "Field", 3, { U16("Field.Flags"), STR("Field.Name"),
        BLOB("Field.Signature") } },
    [CLRMETA_T_METHODPTR] = { "MethodPtr", 1, { TAB(METHODDEF, "MethodPtr.Method") } },
    [CLRMETA_T_METHODDEF] = { "MethodDef", 6, { U32("MethodDef.RVA"), U16("MethodDef.ImplFlags"),
        U16("MethodDef.Flags"), STR("MethodDef.Name"), BLOB("MethodDef.Signature"),
        TAB(PARAM, "MethodDef.ParamList") } },
    [CLRMETA_T_PARAMPTR] = { "ParamPtr", 1, { TAB(PARAM, "ParamPtr.Param") } },
    [CLRMETA_T_PARAM] = { "Param", 3, { U16("Param.Flags"), U16("Param.Sequence"),
        STR("Param.Name") } },
    [CLRMETA_T_INTERFACEIMPL] = { "InterfaceImpl", 2, { TAB(TYPEDEF, "InterfaceImpl.Class"),
        CODED(TYPEDEFORREF, "InterfaceImpl.Interface") } },
    [CLRMETA_T_MEMBERREF] = { "MemberRef", 3, { CODED(MEMBERREFPARENT, "MemberRef.Class"),
        STR("MemberRef.Name"), BLOB("MemberRef.Signature") } },
    [CLRMETA_T_CONSTANT] = { "Constant", 3, { BYTE2("Constant.Type"),
        CODED(HASCONSTANT, "Constant.Parent"), BLOB("Constant.Value") } },
    [CLRMETA_T_CUSTOMATTRIBUTE] = { "CustomAttribute", 3, {
        CODED(HASCUSTOMATTRIBUTE, "CustomAttribute.Parent"),
        CODED(CUSTOMATTRIBUTETYPE, "CustomAttribute.Type"), BLOB("CustomAttribute.Value") } },
    [CLRMETA_T_FIELDMARSHAL] = { "FieldMarshal", 2, {
        CODED(HASFIELDMARSHAL, "FieldMarshal.Parent"), BLOB("FieldMarshal.NativeType") } },
    [CLRMETA_T_DECLSECURITY] = { "DeclSecurity", 3, { U16("DeclSecurity.Action"),
        CODED(HASDECLSECURITY, "DeclSecurity.Parent"), BLOB("DeclSecurity.PermissionSet") } },
    [CLRMETA_T_CLASSLAYOUT] = { "ClassLayout", 3, { U16("ClassLayout.PackingSize"),
        U32("ClassLayout.ClassSize"), TAB(TYPEDEF, "ClassLayout.Parent") } },
    [CLRMETA_T_FIELDLAYOUT] = { "FieldLayout", 2, { U32("FieldLayout.Offset"),
        TAB(FIELD, "FieldLayout.Field") } },
    [CLRMETA_T_STANDALONESIG] = { "StandAloneSig", 1, { BLOB("StandAloneSig.Signature") } },
    [CLRMETA_T_EVENTMAP] = { "EventMap", 2, { TAB(TYPEDEF, "EventMap.Parent"),
        TAB(EVENT, "EventMap.EventList") } },
    [CLRMETA_T_EVENTPTR] = { "EventPtr", 1, { TAB(EVENT, "EventPtr.Event") } },
    [CLRMETA_T_EVENT] = { "Event", 3, { U16("Event.EventFlags"), STR("Event.Name"),
        CODED(TYPEDEFORREF, "Event.EventType") } },
    [CLRMETA_T_PROPERTYMAP] = { "PropertyMap", 2, { TAB(TYPEDEF, "PropertyMap.Parent"),
        TAB(PROPERTY, "PropertyMap.PropertyList") } },
    [CLRMETA_T_PROPERTYPTR] = { "PropertyPtr", 1, { TAB(PROPERTY, "PropertyPtr.Property") } },
    [CLRMETA_T_PROPERTY] = { "Property", 3, { U16("Property.Flags"), STR("Property.Name"),
        BLOB("Property.Type") } },
    [CLRMETA_T_METHODSEMANTICS] = { "MethodSemantics", 3, { U16("MethodSemantics.Semantics"),
        TAB(METHODDEF, "MethodSemantics.Method"),
        CODED(HASSEMANTICS, "MethodSemantics.Association") } },
    [CLRMETA_T_METHODIMPL] = { "MethodImpl", 3, { TAB(TYPEDEF, "MethodImpl.Class"),
        CODED(METHODDEFORREF, "MethodImpl.MethodBody"),
        CODED(METHODDEFORREF, "MethodImpl.MethodDeclaration") } },
    [CLRMETA_T_MODULEREF] = { "ModuleRef", 1, { STR("ModuleRef.Name") } },
    [CLRMETA_T_TYPESPEC] = { "TypeSpec", 1, { BLOB("TypeSpec.Signature") } },
    [CLRMETA_T_IMPLMAP] = { "ImplMap", 4, { U16("ImplMap.MappingFlags"),
        CODED(MEMBERFORWARDED, "ImplMap.MemberForwarded"), STR("ImplMap.ImportName"),
        TAB(MODULEREF, "ImplMap.ImportScope") } },
    [CLRMETA_T_FIELDRVA] = { "FieldRVA", 2, { U32("FieldRVA.RVA"), TAB(FIELD, "FieldRVA.Field") } },
    [CLRMETA_T_ENCLOG] = { "EncLog", 2, { U32("EncLog.Token"), U32("EncLog.FuncCode") } },
    [CLRMETA_T_ENCMAP] = { "EncMap", 1, { U32("EncMap.Token") } },
    [CLRMETA_T_ASSEMBLY] = { "Assembly", 9, { U32("Assembly.HashAlgId"),
        U16("Assembly.MajorVersion"), U16("Assembly.MinorVersion"), U16("Assembly.BuildNumber"),
        U16("Assembly.RevisionNumber"), U32("Assembly.Flags"), BLOB("Assembly.PublicKey"),
        STR("Assembly.Name"), STR("Assembly.Culture") } },
    [CLRMETA_T_ASSEMBLYPROCESSOR] = { "AssemblyProcessor", 1, {
        U32("AssemblyProcessor.Processor") } },
    [CLRMETA_T_ASSEMBLYOS] = { "AssemblyOS", 3, { U32("AssemblyOS.OSPlatformID"),
        U32("AssemblyOS.OSMajorVersion"), U32("AssemblyOS.OSMinorVersion") } },
    [CLRMETA_T_ASSEMBLYREF] = { "AssemblyRef", 9, { U16("AssemblyRef.MajorVersion"),
        U16("AssemblyRef.MinorVersion"), U16("AssemblyRef.BuildNumber"),
        U16("AssemblyRef.RevisionNumber"), U32("AssemblyRef.Flags"),
        BLOB("AssemblyRef.PublicKeyOrToken"), STR("AssemblyRef.Name"),
        STR("AssemblyRef.Culture"), BLOB("AssemblyRef.HashValue") } },
    [CLRMETA_T_ASSEMBLYREFPROCESSOR] = { "AssemblyRefProcessor", 2, {
        U32("AssemblyRefProcessor.Processor"),
        TAB(ASSEMBLYREF, "AssemblyRefProcessor.AssemblyRef") } },
    [CLRMETA_T_ASSEMBLYREFOS] = { "AssemblyRefOS", 4, { U32("AssemblyRefOS.OSPlatformId"),
        U32("AssemblyRefOS.OSMajorVersion"), U32("AssemblyRefOS.OSMinorVersion"),
        TAB(ASSEMBLYREF, "AssemblyRefOS.AssemblyRef") } },
    [CLRMETA_T_FILE] = { "File", 3, { U32("File.Flags"), STR("File.Name"),
        BLOB("File.HashValue") } },
    [CLRMETA_T_EXPORTEDTYPE] = { "ExportedType", 5, { U32("ExportedType.Flags"),
        U32("ExportedType.TypeDefId"), STR("ExportedType.TypeName"),
        STR("ExportedType.TypeNamespace"), CODED(IMPLEMENTATION, "ExportedType.Implementation") } },
    [CLRMETA_T_MANIFESTRESOURCE] = { "ManifestResource", 4, { U32("ManifestResource.Offset"),
        U32("ManifestResource.Flags"), STR("ManifestResource.Name"),
        CODED(IMPLEMENTATION, "ManifestResource.Implementation") } },
    [CLRMETA_T_NESTEDCLASS] = { "NestedClass", 2, { TAB(TYPEDEF, "NestedClass.NestedClass"),
        TAB(TYPEDEF, "NestedClass.EnclosingClass") } },
    [CLRMETA_T_GENERICPARAM] = { "GenericParam", 4, { U16("GenericParam.Number"),
        U16("GenericParam.Flags"), CODED(TYPEORMETHODDEF, "GenericParam.Owner"),
        STR("GenericParam.Name") } },
    [CLRMETA_T_METHODSPEC] = { "MethodSpec", 2, { CODED(METHODDEFORREF, "MethodSpec.Method"),
        BLOB("MethodSpec.Instantiation") } },
    [CLRMETA_T_GENERICPARAMCONSTRAINT] = { "GenericParamConstraint", 2, {
        TAB(GENERICPARAM, "GenericParamConstraint.Owner"),
        CODED(TYPEDEFORREF, "GenericParamConstraint.Constraint") } },
};

#define T(x) CLRMETA_T_##x
#define NONE META_NO_TABLE

/* II.24.2.6: the tag is the low `bits` bits, the rid the rest. */
const meta_coded_def meta_coded[CLRMETA_CI_COUNT] = {
    [CLRMETA_CI_TYPEDEFORREF] = { "TypeDefOrRef", 2, 3, { T(TYPEDEF), T(TYPEREF), T(TYPESPEC) } },
    [CLRMETA_CI_HASCONSTANT] = { "HasConstant", 2, 3, { T(FIELD), T(PARAM), T(PROPERTY) } },
    [CLRMETA_CI_HASCUSTOMATTRIBUTE] = { "HasCustomAttribute", 5, 22, {
        T(METHODDEF), T(FIELD), T(TYPEREF), T(TYPEDEF), T(PARAM), T(INTERFACEIMPL),
        T(MEMBERREF), T(MODULE), T(DECLSECURITY), T(PROPERTY), T(EVENT), T(STANDALONESIG),
        T(MODULEREF), T(TYPESPEC), T(ASSEMBLY), T(ASSEMBLYREF), T(FILE), T(EXPORTEDTYPE),
        T(MANIFESTRESOURCE), T(GENERICPARAM), T(GENERICPARAMCONSTRAINT), T(METHODSPEC) } },
    [CLRMETA_CI_HASFIELDMARSHAL] = { "HasFieldMarshal", 1, 2, { T(FIELD), T(PARAM) } },
    [CLRMETA_CI_HASDECLSECURITY] = { "HasDeclSecurity", 2, 3, {
        T(TYPEDEF), T(METHODDEF), T(ASSEMBLY) } },
    [CLRMETA_CI_MEMBERREFPARENT] = { "MemberRefParent", 3, 5, {
        T(TYPEDEF), T(TYPEREF), T(MODULEREF), T(METHODDEF), T(TYPESPEC) } },
    [CLRMETA_CI_HASSEMANTICS] = { "HasSemantics", 1, 2, { T(EVENT), T(PROPERTY) } },
    [CLRMETA_CI_METHODDEFORREF] = { "MethodDefOrRef", 1, 2, { T(METHODDEF), T(MEMBERREF) } },
    [CLRMETA_CI_MEMBERFORWARDED] = { "MemberForwarded", 1, 2, { T(FIELD), T(METHODDEF) } },
    [CLRMETA_CI_IMPLEMENTATION] = { "Implementation", 2, 3, {
        T(FILE), T(ASSEMBLYREF), T(EXPORTEDTYPE) } },
    [CLRMETA_CI_CUSTOMATTRIBUTETYPE] = { "CustomAttributeType", 3, 5, {
        NONE, NONE, T(METHODDEF), T(MEMBERREF), NONE } },
    [CLRMETA_CI_RESOLUTIONSCOPE] = { "ResolutionScope", 2, 4, {
        T(MODULE), T(MODULEREF), T(ASSEMBLYREF), T(TYPEREF) } },
    [CLRMETA_CI_TYPEORMETHODDEF] = { "TypeOrMethodDef", 1, 2, { T(TYPEDEF), T(METHODDEF) } },
};

/* A simple index is 4 bytes when its table has more than 0xFFFF rows. An
 * index into Field/MethodDef/Param/Event/Property is also 4 bytes when the
 * table's pointer table is that large (as System.Reflection.Metadata does). */
static unsigned simple_width(const clrmeta *md, unsigned t)
{
    if (md->minimal_delta || md->tables[t].rows > 0xFFFF)
        return 4;
    unsigned ptr = NONE;
    switch (t) {
    case T(FIELD): ptr = T(FIELDPTR); break;
    case T(METHODDEF): ptr = T(METHODPTR); break;
    case T(PARAM): ptr = T(PARAMPTR); break;
    case T(EVENT): ptr = T(EVENTPTR); break;
    case T(PROPERTY): ptr = T(PROPERTYPTR); break;
    default: break;
    }
    return ptr != NONE && md->tables[ptr].rows > 0xFFFF ? 4 : 2;
}

/* A coded index is 2 bytes when every table it may name has fewer than
 * 2^(16 - tag bits) rows. */
static unsigned coded_width(const clrmeta *md, unsigned c)
{
    const meta_coded_def *d = &meta_coded[c];
    if (md->minimal_delta)
        return 4;
    uint32_t limit = 1u << (16 - d->bits);
    for (unsigned i = 0; i < d->ntables; i++)
        if (d->tables[i] != NONE && md->tables[d->tables[i]].rows >= limit)
            return 4;
    return 2;
}

void meta_layout(clrmeta *md)
{
    md->string_width = (md->heap_sizes & 0x01) ? 4 : 2;
    md->guid_width = (md->heap_sizes & 0x02) ? 4 : 2;
    md->blob_width = (md->heap_sizes & 0x04) ? 4 : 2;
    for (unsigned t = 0; t < CLRMETA_TABLE_COUNT; t++) {
        const meta_table_def *def = &meta_tables[t];
        clrmeta_table_info *ti = &md->tables[t];
        unsigned off = 0;
        ti->ncols = def->ncols;
        for (unsigned c = 0; c < def->ncols; c++) {
            unsigned w;
            switch (def->cols[c].kind) {
            case COL_U16: w = 2; break;
            case COL_U32: w = 4; break;
            case COL_BYTE2: w = 2; break;
            case COL_STRING: w = md->string_width; break;
            case COL_GUID: w = md->guid_width; break;
            case COL_BLOB: w = md->blob_width; break;
            case COL_TABLE: w = simple_width(md, def->cols[c].arg); break;
            default: w = coded_width(md, def->cols[c].arg); break;
            }
            ti->col_offset[c] = (uint8_t)off;
            ti->col_width[c] = (uint8_t)w;
            off += w;
        }
        ti->row_size = off;
    }
}

uint32_t clrmeta_rows(const clrmeta *md, clrmeta_table t)
{
    if (!md || (unsigned)t >= CLRMETA_TABLE_COUNT)
        return 0;
    return md->tables[t].rows;
}

const char *clrmeta_table_name(clrmeta_table t)
{
    return (unsigned)t < CLRMETA_TABLE_COUNT ? meta_tables[t].name : "?";
}

const char *clrmeta_column_name(clrmeta_table t, unsigned col)
{
    if ((unsigned)t >= CLRMETA_TABLE_COUNT || col >= meta_tables[t].ncols)
        return NULL;
    return meta_tables[t].cols[col].name;
}

# `cmake --build BUILD --target nupkg` runs this script (CMakeLists.txt):
# clrtrace as a .NET tool, two packages in BUILD/nupkg/ (README.md,
# "Installing"):
#   clrtrace.VERSION.nupkg       the tool's package: names the command and,
#                                per runtime identifier, the package that
#                                carries it (a RID-specific tool, .NET SDK 10)
#   clrtrace.RID.VERSION.nupkg   the native clrtrace and libclrtrace.so side
#                                by side in tools/any/RID/ (clrtrace finds
#                                its profiler beside itself), run by the SDK
#                                as an executable (Runner="executable")
# `dotnet tool install -g clrtrace --add-source BUILD/nupkg` then installs
# the package of the machine's RID. The arm64 build (build-aarch64) makes
# clrtrace.linux-arm64.VERSION.nupkg the same way; the tool's package lists
# both RIDs, so one feed can hold both.
#
# Variables (-D): VERSION, RID, CLI, PROFILER, STRIP (may be empty), OUT.
foreach(v VERSION RID CLI PROFILER OUT)
  if(NOT DEFINED ${v} OR "${${v}}" STREQUAL "")
    message(FATAL_ERROR "nupkg.cmake: ${v} is not set")
  endif()
endforeach()
set(rids linux-x64 linux-arm64)
set(stage ${OUT}/stage)
file(REMOVE_RECURSE ${stage})
file(MAKE_DIRECTORY ${stage}/tool/tools/any/any ${stage}/rid/tools/any/${RID})

# nuspec ID PACKAGE-TYPE DIR: a package's manifest.
function(nuspec id type dir)
  file(WRITE ${dir}/${id}.nuspec
"<?xml version=\"1.0\" encoding=\"utf-8\"?>
<package xmlns=\"http://schemas.microsoft.com/packaging/2010/07/nuspec.xsd\">
  <metadata>
    <id>${id}</id>
    <version>${VERSION}</version>
    <authors>clrtrace</authors>
    <description>strace for .NET methods on Linux: every call of a .NET program with its argument values, return value, thread and duration, without changing the program. The native clrtrace command and its CoreCLR profiler.</description>
    <tags>diagnostics tracing profiler coreclr linux</tags>
    <packageTypes>
      <packageType name=\"${type}\" />
    </packageTypes>
  </metadata>
</package>
")
endfunction()

nuspec(clrtrace DotnetTool ${stage}/tool)
set(rid_lines "")
foreach(r ${rids})
  string(APPEND rid_lines "    <RuntimeIdentifierPackage RuntimeIdentifier=\"${r}\" Id=\"clrtrace.${r}\" />\n")
endforeach()
file(WRITE ${stage}/tool/tools/any/any/DotnetToolSettings.xml
"<?xml version=\"1.0\" encoding=\"utf-8\"?>
<DotNetCliTool Version=\"2\">
  <Commands>
    <Command Name=\"clrtrace\" />
  </Commands>
  <RuntimeIdentifierPackages>
${rid_lines}  </RuntimeIdentifierPackages>
</DotNetCliTool>
")

nuspec(clrtrace.${RID} DotnetToolRidPackage ${stage}/rid)
set(bin ${stage}/rid/tools/any/${RID})
file(WRITE ${bin}/DotnetToolSettings.xml
"<?xml version=\"1.0\" encoding=\"utf-8\"?>
<DotNetCliTool Version=\"2\">
  <Commands>
    <Command Name=\"clrtrace\" EntryPoint=\"clrtrace\" Runner=\"executable\" />
  </Commands>
</DotNetCliTool>
")
file(COPY ${CLI} ${PROFILER} DESTINATION ${bin}
  FILE_PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
if(STRIP)
  get_filename_component(cli_name ${CLI} NAME)
  get_filename_component(profiler_name ${PROFILER} NAME)
  execute_process(COMMAND ${STRIP} --strip-debug ${bin}/${cli_name} ${bin}/${profiler_name}
    RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nupkg.cmake: ${STRIP} failed")
  endif()
endif()

# A .nupkg is a zip archive of the folder.
foreach(pkg tool rid)
  if(pkg STREQUAL tool)
    set(file ${OUT}/clrtrace.${VERSION}.nupkg)
  else()
    set(file ${OUT}/clrtrace.${RID}.${VERSION}.nupkg)
  endif()
  file(REMOVE ${file})
  file(GLOB_RECURSE members RELATIVE ${stage}/${pkg} ${stage}/${pkg}/*)
  list(SORT members)
  execute_process(COMMAND ${CMAKE_COMMAND} -E tar cf ${file} --format=zip ${members}
    WORKING_DIRECTORY ${stage}/${pkg} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "nupkg.cmake: cannot write ${file}")
  endif()
  message(STATUS "${file}")
endforeach()
file(REMOVE_RECURSE ${stage})

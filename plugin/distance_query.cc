#include "plugin/distance_query.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

namespace mjportal {

CodeRange FindGeomDistanceCode(mjfCollision original) {
  CodeRange range;
  Dl_info library;
  if (original == nullptr || dladdr(reinterpret_cast<void*>(original), &library) == 0 ||
      library.dli_fname == nullptr) {
    return range;
  }
  // The already loaded library by name (RTLD_NOLOAD: no second copy), then its own definition.
  void* handle = dlopen(library.dli_fname, RTLD_LAZY | RTLD_NOLOAD);
  if (handle == nullptr) {
    return range;
  }
  void* function = dlsym(handle, "mj_geomDistance");
  Dl_info info;
  ElfW(Sym)* symbol = nullptr;  // dladdr1 writes a const pointer through void**
  if (function != nullptr &&
      dladdr1(function, &info, reinterpret_cast<void**>(&symbol), RTLD_DL_SYMENT) != 0 &&
      symbol != nullptr && symbol->st_size > 0) {
    range.begin = reinterpret_cast<std::uintptr_t>(function);
    range.end = range.begin + symbol->st_size;
  }
  dlclose(handle);
  return range;
}

}  // namespace mjportal

/* clvision — symbol export macro. Internal symbols are hidden. */
#ifndef CLVISION_EXPORT_H
#define CLVISION_EXPORT_H

#if defined(CLV_BUILDING_LIBRARY) && defined(__GNUC__)
#define CLV_API __attribute__((visibility("default")))
#else
#define CLV_API
#endif

#endif

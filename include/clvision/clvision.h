/* clvision — vendor-neutral OpenCL computer vision. Umbrella header. */
#ifndef CLVISION_H
#define CLVISION_H

#include "version.h"
#include "export.h"
#include "status.h"
#include "context.h"
#include "image.h"
#include "filter.h"
#include "edge.h"
#include "io.h"
#include "flow.h"
#include "op.h"
#include "color.h"

#endif

// Spellings TensorFlow code uses, for ported custom ops. New minflow code uses
// the MF_ names; this header exists so a port needs only include changes.
#pragma once

#include "minflow/core/logging.h"
#include "minflow/core/status.h"

#define TF_RETURN_IF_ERROR(expr) MF_RETURN_IF_ERROR(expr)
#define TF_ASSIGN_OR_RETURN(lhs, expr) MF_ASSIGN_OR_RETURN(lhs, expr)
#define TF_CHECK_OK(expr) MF_CHECK_OK(expr)

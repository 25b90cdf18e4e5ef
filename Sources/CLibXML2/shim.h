#ifndef PODFRESH_CLIBXML2_SHIM_H
#define PODFRESH_CLIBXML2_SHIM_H

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>
#include <libxml/encoding.h>

#endif

#ifndef PODFRESH_CLIBXML2_SHIM_H
#define PODFRESH_CLIBXML2_SHIM_H

/* Debian's libxml2 is built with ICU, so <libxml/encoding.h> pulls in <unicode/ucnv.h>, whose enums clash with
   Foundation's own copy of ICU (_FoundationICU) in any Swift file that imports both. podfresh never touches the ICU
   members (they are the last fields of xmlCharEncodingHandler, only ever used through pointers), so hide them. */
#include <libxml/xmlversion.h>
#undef LIBXML_ICU_ENABLED

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/xmlerror.h>
#include <libxml/encoding.h>

#endif

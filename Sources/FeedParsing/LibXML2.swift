import CLibXML2

/// libxml2 is initialised once per process, before any parse.
let libxml2Ready: Void = { xmlInitParser() }()

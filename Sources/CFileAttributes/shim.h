// Extended file attributes (getxattr, fsetxattr, fremovexattr), which Swift's Glibc module does not import.
#include <sys/xattr.h>

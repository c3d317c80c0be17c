${banner}
#include "${header}"

#include <assert.h>

${body}

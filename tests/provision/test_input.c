#include "provtest.h"
int main(void) { return 77; }

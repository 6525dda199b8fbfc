#include <cstdio>
int main() { std::puts("paddle_like"); return 0; }

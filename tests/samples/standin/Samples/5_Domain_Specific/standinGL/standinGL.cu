// Never built: it stands for a sample with OpenGL interop, which the eligibility script excludes.
int main() { return 0; }

MemcpyHtoD,0x00007fb0fc400000,4096
kernel-1.traceg

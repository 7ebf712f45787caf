MemcpyHtoD,0x00007fb0fc400000,2048
kernel-1.traceg

kernel-1.traceg
kernel-1.traceg

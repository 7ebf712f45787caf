kernel-1.traceg
kernel-2.traceg
kernel-1.traceg
kernel-3.traceg
kernel-4.traceg
kernel-5.traceg
kernel-2.traceg
kernel-4.traceg

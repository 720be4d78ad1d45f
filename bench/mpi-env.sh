# Sourced: makes Debian's Open MPI usable on a machine that has none (the lent GPU machines).
#   . bench/mpi-env.sh DEBS_DIR [ROOT]
# Unpacks the .deb files of DEBS_DIR (apt-get download libopenmpi3 openmpi-bin openmpi-common
# libopenmpi-dev and their libraries, see docs/distributed.md) under ROOT (default /opt/mpi), never
# over /, and exports what Open MPI needs to run from there: OPAL_PREFIX (Open MPI relocates
# itself to it), PATH, and LD_LIBRARY_PATH with Open MPI's own libraries plus only those carried
# libraries that the machine lacks (its own newer ones stay in use). Also sets the MCA choices that
# Debian's /etc/openmpi/openmpi-mca-params.conf makes (that file is not used from ROOT), shared
# memory between the ranks of one machine, and allows running as root.
_mpi_debs=${1:?usage: . bench/mpi-env.sh DEBS_DIR [ROOT]}
_mpi_root=${2:-/opt/mpi}
mkdir -p "$_mpi_root" "$_mpi_root/missing"
for _f in "$_mpi_debs"/*.deb; do dpkg -x "$_f" "$_mpi_root"; done
_mpi_lib=$_mpi_root/usr/lib/x86_64-linux-gnu
for _f in "$_mpi_lib"/*.so.* "$_mpi_lib"/pmix2/lib/*.so.*; do
  _so=$(basename "$_f")
  case "$_so" in *.so.[0-9]*.[0-9]*) continue ;; esac  # sonames only (libfoo.so.1), not full versions
  _have=$(ldconfig -p | grep -m1 "^[[:space:]]*$_so " | sed 's/.*=> //')
  [ -n "$_have" ] && [ -e "$(readlink -f "$_have")" ] || ln -sf "$_f" "$_mpi_root/missing/$_so"
done
export OPAL_PREFIX=$_mpi_root/usr
# PMIx (Open MPI's launcher library) relocates to its own prefix; its plugins are named too.
export PMIX_PREFIX=$_mpi_lib/pmix2 PMIX_MCA_mca_base_component_path=$_mpi_lib/pmix2/lib/pmix
export PATH=$_mpi_root/usr/bin:$PATH
export LD_LIBRARY_PATH=$_mpi_lib/openmpi/lib:$_mpi_root/missing${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_mtl='^ofi' OMPI_MCA_osc='^ucx,pt2pt'
export OMPI_MCA_btl_base_warn_component_unused=0
# The wrappers are named *.openmpi in Debian (mpicc is an alternatives link, absent here).
export TILELIFE_MPICC=$_mpi_root/usr/bin/mpicc.openmpi TILELIFE_MPIRUN=$_mpi_root/usr/bin/mpirun.openmpi
echo "mpi-env: Open MPI under $_mpi_root; carried libraries in use: $(ls "$_mpi_root/missing" | tr '\n' ' ')"
unset _mpi_debs _mpi_root _mpi_lib _f _so _have

! The MPI example's time loop in Fortran (README.md, "From Fortran"): the
! heat step of heat.tir on a periodic 2-D grid split among MPI ranks,
! called through the module tc-opt --emit=fortran writes (docs/fortran.md).
!
! heat.tir's field is !tir.tensor<f64, I[-1:NX + 1], J[-1:NY + 1]>, so in
! Fortran (dimensions reversed) a rank's field is f(-1:ny, -1:nx): its
! block and the one ghost point on each side that tc-opt --emit=extents
! reports (I: -1 +1   J: -1 +1). The result I[0:NX] x J[0:NY] is written
! into the owned part of a second field, f(0:ny-1, 0:nx-1, next): a
! section, passed without a copy. The two fields swap after each step.
!
!   heat_mpi_f [--nx N] [--ny N] [--steps N] [--out result.npy] [--check]
program heat_mpi_f
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64
  use mpi_f08
  use tir_heat
  implicit none
  integer, parameter :: halo = 1 ! tc-opt --emit=extents heat.tir: I: -1 +1   J: -1 +1
  integer :: nx = 64, ny = 48, steps = 20
  logical :: check = .false.
  character(len=256) :: out = ''
  integer :: nprocs, rank, dims(2), coords(2), start(2), cnt(2)
  integer :: lo_i, hi_i, lo_j, hi_j, cur, step, r
  type(MPI_Comm) :: cart
  real(c_double), allocatable, target :: f(:, :, :)
  real(c_double), allocatable :: g(:, :), whole(:, :, :), blk(:, :)
  real(c_double), allocatable :: sbuf(:), rbuf(:)
  double precision :: t0, t1

  call MPI_Init()
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs)
  call read_arguments()
  dims = 0
  call MPI_Dims_create(nprocs, 2, dims)
  call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, [.true., .true.], .true., cart)
  call MPI_Comm_rank(cart, rank)
  call MPI_Cart_coords(cart, rank, 2, coords)
  call MPI_Cart_shift(cart, 0, 1, lo_i, hi_i)
  call MPI_Cart_shift(cart, 1, 1, lo_j, hi_j)
  call owned(coords, start, cnt)
  if (cnt(1) < halo .or. cnt(2) < halo) then
    if (rank == 0) print '(a)', 'heat_mpi_f: a block is smaller than the halo: use fewer ranks or a larger grid'
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end if

  ! f(j, i, k): point (i, j) of field k, ghost points included.
  allocate (f(-halo:cnt(2) - 1 + halo, -halo:cnt(1) - 1 + halo, 0:1))
  f = 0
  call fill(f(0:cnt(2) - 1, 0:cnt(1) - 1, 0), start)
  allocate (sbuf(-halo:cnt(1) - 1 + halo), rbuf(-halo:cnt(1) - 1 + halo))

  call MPI_Barrier(cart)
  t0 = MPI_Wtime()
  cur = 0
  do step = 1, steps
    call exchange(f(:, :, cur), cnt)
    call heat(f(:, :, cur), f(0:cnt(2) - 1, 0:cnt(1) - 1, 1 - cur), cnt(1), cnt(2))
    cur = 1 - cur
  end do
  call MPI_Barrier(cart)
  t1 = MPI_Wtime()

  ! Rank 0 gathers the blocks.
  if (rank == 0) then
    allocate (g(0:ny - 1, 0:nx - 1))
    g(start(2):start(2) + cnt(2) - 1, start(1):start(1) + cnt(1) - 1) = f(0:cnt(2) - 1, 0:cnt(1) - 1, cur)
    do r = 1, nprocs - 1
      block
        integer :: c(2), s(2), n(2)
        call MPI_Cart_coords(cart, r, 2, c)
        call owned(c, s, n)
        allocate (blk(n(2), n(1)))
        call MPI_Recv(blk, size(blk), MPI_DOUBLE_PRECISION, r, 7, cart, MPI_STATUS_IGNORE)
        g(s(2):s(2) + n(2) - 1, s(1):s(1) + n(1) - 1) = blk
        deallocate (blk)
      end block
    end do
    print '(a, i0, a, i0, a, i0, a, i0, a, i0, a, i0, a, f0.3, a)', 'heat on ', nx, ' x ', ny, ' points (I x J), ', &
        nprocs, ' ranks as ', dims(1), ' x ', dims(2), ', halo 1, ', steps, ' steps in ', (t1 - t0) * 1d3, ' ms (Fortran)'
    if (len_trim(out) > 0) call write_npy(trim(out), g)
    if (check) then
      ! The same steps on the whole grid in one piece.
      allocate (whole(-halo:ny - 1 + halo, -halo:nx - 1 + halo, 0:1))
      whole = 0
      call fill(whole(0:ny - 1, 0:nx - 1, 0), [0, 0])
      cur = 0
      do step = 1, steps
        call periodic(whole(:, :, cur))
        call heat(whole(:, :, cur), whole(0:ny - 1, 0:nx - 1, 1 - cur), nx, ny)
        cur = 1 - cur
      end do
      if (all(transfer(g, 0_int64, size(g)) == transfer(whole(0:ny - 1, 0:nx - 1, cur), 0_int64, size(g)))) then
        print '(a, i0, a)', 'check: the gathered result equals the single-domain run bit for bit (', size(g), ' points)'
      else
        print '(a)', 'check: the gathered result differs from the single-domain run'
        call MPI_Abort(MPI_COMM_WORLD, 1)
      end if
    end if
  else
    blk = f(0:cnt(2) - 1, 0:cnt(1) - 1, cur)
    call MPI_Send(blk, size(blk), MPI_DOUBLE_PRECISION, 0, 7, cart)
  end if
  call MPI_Finalize()

contains

  ! The part of the grid the rank at coords owns: blocks differ by at most
  ! one point per dimension.
  subroutine owned(c, s, n)
    integer, intent(in) :: c(2)
    integer, intent(out) :: s(2), n(2)
    integer :: k, total(2)
    total = [nx, ny]
    do k = 1, 2
      n(k) = total(k) / dims(k)
      s(k) = c(k) * n(k) + min(c(k), mod(total(k), dims(k)))
      if (c(k) < mod(total(k), dims(k))) n(k) = n(k) + 1
    end do
  end subroutine owned

  ! The initial condition (initial() in main.c) on the points from start on.
  subroutine fill(a, s)
    real(c_double), intent(out) :: a(0:, 0:)
    integer, intent(in) :: s(2)
    integer :: i, j
    do i = 0, size(a, 2) - 1
      do j = 0, size(a, 1) - 1
        a(j, i) = real(mod((s(1) + i) * 31 + (s(2) + j) * 17, 101), c_double) / 101d0
      end do
    end do
  end subroutine fill

  ! Exchanges the ghost points with the neighbours: along I the columns
  ! a(0:, i) (contiguous), then along J every row a(j, :) of the block and
  ! its ghost columns, which fills the corners.
  subroutine exchange(a, n)
    real(c_double), intent(inout) :: a(-halo:, -halo:)
    integer, intent(in) :: n(2)
    call MPI_Sendrecv(a(0:n(2) - 1, n(1) - 1), n(2), MPI_DOUBLE_PRECISION, hi_i, 1, &
        a(0:n(2) - 1, -1), n(2), MPI_DOUBLE_PRECISION, lo_i, 1, cart, MPI_STATUS_IGNORE)
    call MPI_Sendrecv(a(0:n(2) - 1, 0), n(2), MPI_DOUBLE_PRECISION, lo_i, 2, &
        a(0:n(2) - 1, n(1)), n(2), MPI_DOUBLE_PRECISION, hi_i, 2, cart, MPI_STATUS_IGNORE)
    sbuf = a(n(2) - 1, :)
    call MPI_Sendrecv(sbuf, size(sbuf), MPI_DOUBLE_PRECISION, hi_j, 3, &
        rbuf, size(rbuf), MPI_DOUBLE_PRECISION, lo_j, 3, cart, MPI_STATUS_IGNORE)
    a(-1, :) = rbuf
    sbuf = a(0, :)
    call MPI_Sendrecv(sbuf, size(sbuf), MPI_DOUBLE_PRECISION, lo_j, 4, &
        rbuf, size(rbuf), MPI_DOUBLE_PRECISION, hi_j, 4, cart, MPI_STATUS_IGNORE)
    a(n(2), :) = rbuf
  end subroutine exchange

  ! The ghost points of the whole grid, wrapping around.
  subroutine periodic(a)
    real(c_double), intent(inout) :: a(-halo:, -halo:)
    integer :: m, n
    m = size(a, 1) - 2 * halo
    n = size(a, 2) - 2 * halo
    a(0:m - 1, -1) = a(0:m - 1, n - 1)
    a(0:m - 1, n) = a(0:m - 1, 0)
    a(-1, :) = a(m - 1, :)
    a(m, :) = a(0, :)
  end subroutine periodic

  ! Writes g(j, i) as the C-order NumPy array of shape (nx, ny).
  subroutine write_npy(path, a)
    character(len=*), intent(in) :: path
    real(c_double), intent(in) :: a(:, :)
    character(len=:), allocatable :: header
    character(len=32) :: shape
    integer :: u
    write (shape, '(a, i0, a, i0, a)') '(', size(a, 2), ', ', size(a, 1), ')'
    header = "{'descr': '<f8', 'fortran_order': False, 'shape': " // trim(shape) // ", }"
    header = header // repeat(' ', 63 - mod(10 + len(header), 64)) // achar(10)
    open (newunit=u, file=path, access='stream', form='unformatted', status='replace', action='write')
    write (u) int(-109, c_int8_t) ! 0x93
    write (u) 'NUMPY' // achar(1) // achar(0)
    write (u) achar(mod(len(header), 256)) // achar(len(header) / 256)
    write (u) header
    write (u) a
    close (u)
  end subroutine write_npy

  subroutine read_arguments()
    integer :: k, n
    character(len=256) :: arg, val
    n = command_argument_count()
    k = 1
    do while (k <= n)
      call get_command_argument(k, arg)
      select case (trim(arg))
      case ('--check')
        check = .true.
      case ('--nx', '--ny', '--steps', '--out')
        if (k == n) call usage('missing value after ' // trim(arg))
        k = k + 1
        call get_command_argument(k, val)
        select case (trim(arg))
        case ('--nx')
          read (val, *) nx
        case ('--ny')
          read (val, *) ny
        case ('--steps')
          read (val, *) steps
        case ('--out')
          out = val
        end select
      case default
        call usage('unknown argument ' // trim(arg))
      end select
      k = k + 1
    end do
  end subroutine read_arguments

  subroutine usage(why)
    character(len=*), intent(in) :: why
    print '(a)', 'heat_mpi_f: ' // why // ' (usage: heat_mpi_f [--nx N] [--ny N] [--steps N] [--out result.npy] [--check])'
    call MPI_Abort(MPI_COMM_WORLD, 2)
  end subroutine usage
end program heat_mpi_f
